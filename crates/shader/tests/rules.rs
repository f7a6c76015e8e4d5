//! Each rule of the front end and the validator has a token stream (or a
//! program, assembled to tokens) that breaks it, with the exact error kind
//! and DWORD offset. Offsets are counted by hand from the token layout:
//! the version token is DWORD 0.

use softhal_shader::parse_and_validate;
use softhal_shader::text::assemble;

const END: u32 = 0x0000_FFFF;
const VS_2_0: u32 = 0xFFFE_0200;
const VS_1_1: u32 = 0xFFFE_0101;

fn tokens_fail(tokens: &[u32]) -> (&'static str, usize) {
    let e = parse_and_validate(tokens).expect_err("must be rejected");
    assert_eq!(e.byte_offset(), e.dword * 4);
    (e.kind(), e.dword)
}

fn text_fail(text: &str) -> (&'static str, usize) {
    let shader = assemble(text).unwrap_or_else(|e| panic!("{text}: {e}"));
    tokens_fail(&shader.to_tokens())
}

fn text_ok(text: &str) {
    let shader = assemble(text).unwrap_or_else(|e| panic!("{text}: {e}"));
    if let Err(e) = parse_and_validate(&shader.to_tokens()) {
        panic!("{text}: {e}");
    }
}

#[test]
fn stream_structure() {
    assert_eq!(tokens_fail(&[]), ("empty", 0));
    // vs_1_0 and vs_4_0 are not D3D8/9 HAL versions softhal takes.
    assert_eq!(tokens_fail(&[0xFFFE_0100, END]), ("unsupported_version", 0));
    assert_eq!(tokens_fail(&[0xFFFE_0400, END]), ("unsupported_version", 0));
    assert_eq!(tokens_fail(&[VS_2_0]), ("missing_end", 1));
    assert_eq!(tokens_fail(&[VS_2_0, END, 0]), ("trailing_tokens", 2));
    // A comment claims 5 DWORDs, 1 follows.
    assert_eq!(
        tokens_fail(&[VS_2_0, 0x0005_FFFE, 1, END]),
        ("comment_overrun", 1)
    );
    // Comments are skipped.
    assert!(parse_and_validate(&[VS_2_0, 0x0002_FFFE, 0xDEAD, 0xBEEF, END]).is_ok());
    // Opcode 0x31 is unassigned.
    assert_eq!(
        tokens_fail(&[VS_2_0, 0x0000_0031, END]),
        ("unknown_opcode", 1)
    );
    // MOVA is vs_2_0+.
    assert_eq!(
        tokens_fail(&[VS_1_1, 0x0000_002E, 0xB00F_0000, 0xA0E4_0000, END]),
        ("opcode_not_in_version", 1)
    );
    // A mov whose length field says 2 but the stream ends after 1.
    assert_eq!(
        tokens_fail(&[VS_2_0, 0x0200_0001, 0x800F_0000]),
        ("truncated", 1)
    );
    // Length 3 for a mov (dst + src = 2).
    assert_eq!(
        tokens_fail(&[
            VS_2_0,
            0x0300_0001,
            0x800F_0000,
            0xA0E4_0000,
            0xA0E4_0000,
            END
        ]),
        ("length_mismatch", 1)
    );
    // A length field in a vs_1_1 instruction.
    assert_eq!(
        tokens_fail(&[VS_1_1, 0x0200_0001, 0x800F_0000, 0xA0E4_0000, END]),
        ("malformed_token", 1)
    );
    // SM1 instructions have no length: the param count comes from the
    // opcode table (mov = 2).
    assert!(parse_and_validate(&[VS_1_1, 0x0000_0001, 0x800F_0000, 0xA0E4_0000, END]).is_ok());
}

#[test]
fn malformed_parameters() {
    // Bit 31 clear on the destination.
    assert_eq!(
        tokens_fail(&[VS_2_0, 0x0200_0001, 0x000F_0000, 0xA0E4_0000, END]),
        ("malformed_token", 2)
    );
    // Empty write mask.
    assert_eq!(
        tokens_fail(&[VS_2_0, 0x0200_0001, 0x8000_0000, 0xA0E4_0000, END]),
        ("malformed_token", 2)
    );
    // Register type 20 (bits 4:3 = 2, bits 2:0 = 4) does not exist.
    assert_eq!(
        tokens_fail(&[VS_2_0, 0x0200_0001, 0x800F_0000, 0xC0E4_1000, END]),
        ("malformed_token", 3)
    );
    // Source modifier 14 does not exist.
    assert_eq!(
        tokens_fail(&[VS_2_0, 0x0200_0001, 0x800F_0000, 0xAEE4_0000, END]),
        ("malformed_token", 3)
    );
    // Result shift 4 does not exist.
    assert_eq!(
        tokens_fail(&[0xFFFF_0101, 0x0000_0001, 0x840F_0000, 0xA0E4_0000, END]),
        ("malformed_token", 2)
    );
    // Control bits on a mov.
    assert_eq!(
        tokens_fail(&[VS_2_0, 0x0201_0001, 0x800F_0000, 0xA0E4_0000, END]),
        ("malformed_token", 1)
    );
}

#[test]
fn register_types_per_operand() {
    // Constants are read-only.
    assert_eq!(text_fail("vs_2_0\nmov c0, r0"), ("register_not_allowed", 2));
    // ps_2_0 has no integer constants.
    assert_eq!(text_fail("ps_2_0\nmov r0, i0"), ("register_not_allowed", 3));
    // mova writes a0 only.
    assert_eq!(
        text_fail("vs_2_0\nmova r0, c0"),
        ("register_not_allowed", 2)
    );
    // texld's second source must be a sampler.
    assert_eq!(
        text_fail("ps_2_0\ndcl t0\ntexld r0, t0, c0"),
        ("register_not_allowed", 7)
    );
    // rep counts with an i#.
    assert_eq!(
        text_fail("vs_2_0\nrep c0\nendrep"),
        ("register_not_allowed", 2)
    );
}

#[test]
fn modifiers() {
    // No _sat before vs_3_0 (DWORD 2: the destination).
    assert_eq!(
        text_fail("vs_2_0\nmov_sat r0, c0"),
        ("modifier_not_allowed", 2)
    );
    text_ok("vs_3_0\nmov_sat r0, c0");
    // _bx2 is ps_1_x only.
    assert_eq!(
        text_fail("ps_2_0\nmov r0, c0_bx2"),
        ("modifier_not_allowed", 3)
    );
    text_ok("ps_1_1\nmov r0, c0_bx2");
    // _x2 (source) is ps_1_4 only; result shifts ps_1_x only.
    assert_eq!(
        text_fail("ps_1_1\nmov r0, c0_x2"),
        ("modifier_not_allowed", 3)
    );
    text_ok("ps_1_4\nmov_x2 r0, c0_x2");
    assert_eq!(
        text_fail("ps_2_0\nmov_x2 r0, c0"),
        ("modifier_not_allowed", 2)
    );
    // _abs is a 3.0 source modifier.
    assert_eq!(
        text_fail("ps_2_0\nmov r0, c0_abs"),
        ("modifier_not_allowed", 3)
    );
    text_ok("ps_3_0\nmov r0, -c0_abs");
    // _pp is ps_2_0+.
    assert_eq!(
        text_fail("vs_3_0\nmov_pp r0, c0"),
        ("modifier_not_allowed", 2)
    );
    // Co-issue is ps_1_x only, never on the first instruction.
    assert_eq!(
        text_fail("ps_1_1\n+mov r0, c0"),
        ("modifier_not_allowed", 1)
    );
    text_ok("ps_1_1\nmov r0.rgb, c0\n+mov r0.a, c1");
    // Predication needs p0 (vs_2_x, vs_3_0, ps_2_x, ps_3_0).
    assert_eq!(
        text_fail("vs_2_0\n(p0) mov r0, c0"),
        ("modifier_not_allowed", 1)
    );
    text_ok("vs_2_x\nsetp_gt p0, c0, c1\n(p0.x) mov r0, c0\n(!p0) add r0, r0, c1");
}

#[test]
fn relative_addressing() {
    // Only constants are indexed in vs_2_0 (the source is DWORD 3).
    assert_eq!(
        text_fail("vs_2_0\nmov r0, r1[a0.x]"),
        ("relative_not_allowed", 3)
    );
    // a0 takes one component.
    assert_eq!(
        text_fail("vs_2_0\nmova a0, c0\nmov r0, c0[a0.xy]"),
        ("relative_not_allowed", 6)
    );
    // aL only inside a loop.
    assert_eq!(
        text_fail("vs_3_0\nmov r0, c0[aL]"),
        ("relative_not_allowed", 3)
    );
    text_ok("vs_3_0\ndefi i0, 4, 0, 1, 0\nloop aL, i0\nmov r0, c0[aL]\nendloop");
    // Pixel shaders before 3.0 have no relative addressing: a0 does not
    // exist there (tokens, since the assembler has no `a0` in ps).
    assert_eq!(
        tokens_fail(&[
            0xFFFF_0200,
            0x0300_0001,
            0x800F_0000,
            0xA0E4_2000,
            0xB000_0000,
            END
        ]),
        ("relative_not_allowed", 3)
    );
    // vs_1_1: implicit a0.x, no address token.
    text_ok("vs_1_1\nmov a0.x, c0\nmov r0, c[a0.x + 5]");
}

#[test]
fn flow_control_pairing() {
    assert_eq!(text_fail("vs_2_0\nendif"), ("unmatched_block_end", 1));
    assert_eq!(text_fail("vs_2_0\nelse"), ("unmatched_block_end", 1));
    assert_eq!(text_fail("vs_2_0\nendrep"), ("unmatched_block_end", 1));
    assert_eq!(text_fail("vs_2_0\nendloop"), ("unmatched_block_end", 1));
    // rep closed by endloop: defi 1–6, rep 7–8, endloop 9.
    assert_eq!(
        text_fail("vs_2_0\ndefi i0, 1, 0, 0, 0\nrep i0\nendloop"),
        ("unmatched_block_end", 9)
    );
    // Two else: defb 1–3, if 4–5, else 6, else 7.
    assert_eq!(
        text_fail("vs_2_0\ndefb b0, true\nif b0\nelse\nelse\nendif"),
        ("unmatched_block_end", 7)
    );
    // An if left open: defb 1–3, if 4–5, mov 6–8, END at 9.
    assert_eq!(
        text_fail("vs_2_0\ndefb b0, true\nif b0\nmov r0, c0"),
        ("unclosed_block", 9)
    );
    assert_eq!(text_fail("vs_2_x\nbreak"), ("break_outside_loop", 1));
    text_ok("vs_2_x\ndefi i0, 3, 0, 0, 0\nrep i0\nbreak_gt c0.x, c1.x\nendrep");
}

#[test]
fn subroutines() {
    // call 1–2, ret 3, label 4–5, call 6–7, ret 8: l0 calls itself.
    assert_eq!(
        text_fail("vs_2_x\ncall l0\nret\nlabel l0\ncall l0\nret"),
        ("subroutine", 6)
    );
    assert_eq!(
        text_fail("vs_2_0\ncall l1\nret\nlabel l0\nret"),
        ("subroutine", 1)
    );
    // label l0 twice: the second at 7.
    assert_eq!(
        text_fail("vs_2_0\ncall l0\nret\nlabel l0\nret\nlabel l0\nret"),
        ("subroutine", 7)
    );
    // A label must follow a ret.
    assert_eq!(text_fail("vs_2_0\nlabel l0\nret"), ("subroutine", 1));
    // Code after the main ret must be in a subroutine.
    assert_eq!(text_fail("vs_2_0\nret\nmov r0, c0"), ("subroutine", 2));
    // A subroutine must end with ret: label 4–5, mov 6–8, END 9.
    assert_eq!(
        text_fail("vs_2_0\ncall l0\nret\nlabel l0\nmov r0, c0"),
        ("subroutine", 9)
    );
}

#[test]
fn declarations() {
    // vs_2_0 inputs must be declared: mov 1, r0 2, v0 3.
    assert_eq!(text_fail("vs_2_0\nmov r0, v0"), ("undeclared", 3));
    // ps_2_0 samplers too: dcl 1–3, texld 4, r0 5, t0 6, s0 7.
    assert_eq!(
        text_fail("ps_2_0\ndcl t0\ntexld r0, t0, s0"),
        ("undeclared", 7)
    );
    // vs_3_0 outputs too.
    assert_eq!(text_fail("vs_3_0\nmov o0, c0"), ("undeclared", 2));
    // ps_3_0 vPos too.
    assert_eq!(text_fail("ps_3_0\nmov r0, vPos"), ("undeclared", 3));
    text_ok("ps_3_0\ndcl vPos.xy\nmov r0.xy, vPos");
    // Declarations come first: mov 1–3, dcl 4.
    assert_eq!(
        text_fail("ps_2_0\nmov r0, c0\ndcl t0"),
        ("bad_declaration", 4)
    );
    // A sampler needs a texture type (the DCL token, DWORD 2).
    assert_eq!(text_fail("ps_2_0\ndcl s0"), ("bad_declaration", 2));
    // Declared twice.
    assert_eq!(
        text_fail("ps_2_0\ndcl_2d s0\ndcl_cube s0"),
        ("bad_declaration", 6)
    );
    // No usage on ps_2_0 declarations.
    assert_eq!(
        text_fail("ps_2_0\ndcl_texcoord1 t0"),
        ("bad_declaration", 2)
    );
    // No v# declarations in ps_1_x (dcl is not part of ps_1_x at all).
    assert_eq!(text_fail_version("ps_1_4\ndcl v0"), "syntax");
    // _centroid only on ps_2_0+ declarations.
    text_ok("ps_2_0\ndcl_centroid t0\nmov r0, t0");
    text_ok("ps_3_0\ndcl_texcoord0_centroid v0\nmov oC0, v0");
    // ps_3_0 inputs and vs_3_0 outputs may pack several semantics into
    // one register on disjoint components; a component or a semantic is
    // declared once (the error at the second declaration's register token,
    // or its usage token).
    text_ok("ps_3_0\ndcl_texcoord0 v0.xy\ndcl_texcoord1 v0.zw\nmov oC0, v0");
    text_ok("vs_3_0\ndcl_position v0.xyz\ndcl_position o0\ndcl_texcoord0 o3.xy\ndcl_texcoord1 o3.zw\nmov o0, v0\nmov o3, v0");
    assert_eq!(
        text_fail("ps_3_0\ndcl_texcoord0 v0.xyz\ndcl_texcoord1 v0.zw\nmov oC0, v0"),
        ("bad_declaration", 6)
    );
    assert_eq!(
        text_fail("ps_3_0\ndcl_texcoord0 v0.xy\ndcl_texcoord0 v1.xy\nmov oC0, v0"),
        ("bad_declaration", 5)
    );
    assert_eq!(
        text_fail("vs_3_0\ndcl_position o0\ndcl_texcoord0 o3.xy\ndcl_color o3.y\nmov o0, c0"),
        ("bad_declaration", 9)
    );
    assert_eq!(
        text_fail("vs_3_0\ndcl_texcoord_centroid v0"),
        ("bad_declaration", 3)
    );
    // ... and, from ps_2_0, on the texture lookups and dsx/dsy (a hint for
    // their gradients); on other instructions, in ps_1_x and in vertex
    // shaders it is refused at the destination token (after the version
    // token and three DWORDs per dcl, the instruction token, then it).
    text_ok("ps_2_0\ndcl t0\ndcl_2d s0\ntexld_centroid r0, t0, s0\ntexldp_centroid r1, t0, s0\nmov oC0, r0");
    text_ok("ps_3_0\ndcl_texcoord0 v0\ndcl_2d s0\ntexldl_centroid r0, v0, s0\ndsx_centroid r1, v0\ndsy_centroid r2, v0\nmov oC0, r0");
    assert_eq!(
        text_fail("ps_2_0\ndcl t0\nmov_centroid r0, t0\nmov oC0, r0"),
        ("modifier_not_allowed", 5)
    );
    assert_eq!(
        text_fail("vs_3_0\ndcl_position v0\ndcl_position o0\nmov_centroid o0, v0"),
        ("modifier_not_allowed", 8)
    );
}

fn text_fail_version(text: &str) -> &'static str {
    assemble(text).unwrap_err().kind()
}

#[test]
fn constant_definitions() {
    // def c0 at 1, dst 2, values 3–6: the infinity is value 4 (DWORD 6).
    assert_eq!(
        text_fail("vs_2_0\ndef c0, 1, 2, 3, inf"),
        ("bad_definition", 6)
    );
    assert_eq!(
        tokens_fail(&[VS_2_0, 0x0200_002F, 0xE00F_0800, 2, END]),
        ("bad_definition", 3)
    );
    // def with a write mask (c0.x): tokens, the assembler writes full masks.
    assert_eq!(
        tokens_fail(&[VS_2_0, 0x0500_0051, 0xA001_0000, 0x3F80_0000, 0, 0, 0, END]),
        ("bad_definition", 2)
    );
    // def names a c#, defi an i#.
    assert_eq!(
        text_fail("vs_2_0\ndefi c0, 1, 2, 3, 4"),
        ("register_not_allowed", 2)
    );
}

#[test]
fn ps_1_4_phase() {
    text_ok("ps_1_4\ntexld r0, t0\nphase\ntexld r1, r0\nmov r0, r1");
    // phase 1, phase 2.
    assert_eq!(text_fail("ps_1_4\nphase\nphase"), ("bad_operand", 2));
}

/// ps_1_1–1_3 texture-register sequences (the texm3x2*/texm3x3* pages of
/// the Direct3D reference: `tex t(n)`, then pads on t(m), t(m+1) with
/// m > n and one source, then the final row). Offsets: the version token is
/// 0; `tex tN` and `texkill tN` take 2 DWORDs, the texm3x* rows and
/// `mov r, s` 3.
#[test]
fn ps_1_x_texture_sequences() {
    text_ok("ps_1_1\ntex t0\ntexm3x2pad t1, t0\ntexm3x2tex t2, t0\nmov r0, t2");
    text_ok("ps_1_3\ntex t0\ntexm3x3pad t1, t0\ntexm3x3pad t2, t0\ntexm3x3 t3, t0\nmov r0, t3");
    text_ok("ps_1_1\ntex t0\ntexkill t1\nmov r0, t0");
    // An arithmetic instruction before a texture instruction: the tex at 4.
    assert_eq!(
        text_fail("ps_1_1\nmov r0, v0\ntex t0"),
        ("texture_sequence", 4)
    );
    // t1 read by arithmetic but never written: the mov at 3.
    assert_eq!(
        text_fail("ps_1_1\ntex t0\nmov r0, t1"),
        ("texture_sequence", 3)
    );
    // t0 written twice: the second tex at 3.
    assert_eq!(
        text_fail("ps_1_1\ntex t0\ntex t0\nmov r0, t0"),
        ("texture_sequence", 3)
    );
    // A pad whose source is not written yet: at 1.
    assert_eq!(
        text_fail("ps_1_1\ntexm3x2pad t1, t0\ntexm3x2tex t2, t0\nmov r0, t2"),
        ("texture_sequence", 1)
    );
    // The final row on the wrong register (t3 after the pad on t1): at 6.
    assert_eq!(
        text_fail("ps_1_1\ntex t0\ntexm3x2pad t1, t0\ntexm3x2tex t3, t0\nmov r0, t3"),
        ("texture_sequence", 6)
    );
    // A final row without its pads: at 3.
    assert_eq!(
        text_fail("ps_1_1\ntex t0\ntexm3x3tex t1, t0\nmov r0, t1"),
        ("texture_sequence", 3)
    );
    // Only one texm3x3pad before the final row: the row at 6.
    assert_eq!(
        text_fail("ps_1_1\ntex t0\ntexm3x3pad t1, t0\ntexm3x3tex t2, t0\nmov r0, t2"),
        ("texture_sequence", 6)
    );
    // A matrix left open by an arithmetic instruction: the mov at 6.
    assert_eq!(
        text_fail("ps_1_1\ntex t0\ntexm3x2pad t1, t0\nmov r0, t0"),
        ("texture_sequence", 6)
    );
    // The rules are ps_1_1–1_3's: ps_1_4 and ps_2_0 read t# freely.
    text_ok("ps_1_4\nmov r0, t0");
    text_ok("ps_2_0\ndcl t0\nmov oC0, t0");
}
