//! Per version: a program at each limit validates, and the same program one
//! past it fails with the exact error kind and DWORD offset. The limits
//! are restated here from the Direct3D documentation (the DDK's
//! `D3DVS_*`/`D3DPS_*` register maxima, the asm reference's instruction
//! counts and flow-control nesting tables; `docs/shaders.md` §5–§7), not
//! read from the crate.

use softhal_shader::ir::Profile::{self, *};
use softhal_shader::text::assemble;

/// Assembles `body` under `profile`, validates, and returns the error's
/// (kind, dword) or None.
fn check(profile: Profile, body: &str) -> Option<(&'static str, usize)> {
    let text = format!("{}\n{body}", profile.name());
    let shader = assemble(&text).unwrap_or_else(|e| panic!("{text}: {e}"));
    // Through tokens, as a driver gets it.
    let tokens = shader.to_tokens();
    match softhal_shader::parse_and_validate(&tokens) {
        Ok(_) => None,
        Err(e) => Some((e.kind(), e.dword)),
    }
}

/// `template` with `{n}` = limit − 1 validates; with `{n}` = limit it fails
/// with `register_out_of_range` at `offset`.
fn at_limit(profile: Profile, template: &str, limit: u32, offset: usize) {
    let ok = template.replace("{n}", &(limit - 1).to_string());
    assert_eq!(check(profile, &ok), None, "{profile}: {ok}");
    let over = template.replace("{n}", &limit.to_string());
    assert_eq!(
        check(profile, &over),
        Some(("register_out_of_range", offset)),
        "{profile}: {over}"
    );
}

#[test]
fn temporary_registers() {
    // D3DVS_TEMPREG_MAX_V1_1/V2_0 12, V2_1/V3_0 32; D3DPS_TEMPREG_MAX_V1_1..1_3
    // 2, V1_4 6, V2_0 12, V2_1/V3_0 32.
    for (p, n) in [
        (Vs1_1, 12),
        (Vs2_0, 12),
        (Vs2_x, 32),
        (Vs3_0, 32),
        (Ps1_1, 2),
        (Ps1_2, 2),
        (Ps1_3, 2),
        (Ps1_4, 6),
        (Ps2_0, 12),
        (Ps2_x, 32),
        (Ps3_0, 32),
    ] {
        // mov: instruction token 1, destination 2.
        at_limit(p, "mov r{n}, c0", n, 2);
    }
}

#[test]
fn float_constants() {
    // vs_1_1 96 (D3DVS_CONSTREG_MAX_V1_1); vs_2_0+ 256 (the vs_2_0/vs_3_0
    // reference minimum, what softhal reports); ps_1_x 8; ps_2_0/2_x 32;
    // ps_3_0 224.
    for (p, n) in [
        (Vs1_1, 96),
        (Vs2_0, 256),
        (Vs2_x, 256),
        (Vs3_0, 256),
        (Ps1_1, 8),
        (Ps1_4, 8),
        (Ps2_0, 32),
        (Ps2_x, 32),
        (Ps3_0, 224),
    ] {
        // mov r0, c#: the source is DWORD 3.
        at_limit(p, "mov r0, c{n}", n, 3);
    }
}

#[test]
fn inputs() {
    // D3DVS_INPUTREG_MAX_* 16; D3DPS_INPUTREG_MAX_V1_1..V2_1 2, V3_0 10.
    at_limit(Vs1_1, "mov r0, v{n}", 16, 3);
    for p in [Vs2_0, Vs2_x, Vs3_0] {
        // dcl: instruction 1, declaration token 2, register 3.
        at_limit(p, "dcl_texcoord v{n}\nmov r0, v{n}", 16, 3);
    }
    at_limit(Ps1_1, "mov r0, v{n}", 2, 3);
    at_limit(Ps1_4, "mov r0, v{n}", 2, 3);
    at_limit(Ps2_0, "dcl v{n}\nmov r0, v{n}", 2, 3);
    at_limit(Ps2_x, "dcl v{n}\nmov r0, v{n}", 2, 3);
    at_limit(Ps3_0, "dcl_texcoord v{n}\nmov r0, v{n}", 10, 3);
}

#[test]
fn texture_and_sampler_registers() {
    // D3DPS_TEXTUREREG_MAX_V1_1..V1_3 4, V1_4 6, V2_0/V2_1 8; samplers:
    // ps_2_0+ 16, vs_3_0 4 (D3DVERTEXTEXTURESAMPLER0..3).
    at_limit(Ps1_1, "tex t{n}", 4, 2);
    at_limit(Ps1_3, "tex t{n}", 4, 2);
    at_limit(Ps1_4, "texld r0, t{n}", 6, 3);
    at_limit(Ps2_0, "dcl t{n}\nmov r0, t{n}", 8, 3);
    at_limit(Ps2_x, "dcl t{n}\nmov r0, t{n}", 8, 3);
    for p in [Ps2_0, Ps2_x, Ps3_0] {
        at_limit(p, "dcl_2d s{n}", 16, 3);
    }
    at_limit(Vs3_0, "dcl_2d s{n}", 4, 3);
}

#[test]
fn outputs() {
    // D3DVS_TCRDOUTREG_MAX 8, D3DVS_ATTROUTREG_MAX 2 (vs < 3.0);
    // D3DVS_OUTPUTREG_MAX_V3_0 12; D3DPS_COLOROUT_MAX 4.
    for p in [Vs1_1, Vs2_0, Vs2_x] {
        at_limit(p, "mov oT{n}, c0", 8, 2);
        at_limit(p, "mov oD{n}, c0", 2, 2);
    }
    at_limit(Vs3_0, "dcl_texcoord o{n}\nmov o{n}, c0", 12, 3);
    for p in [Ps2_0, Ps2_x, Ps3_0] {
        at_limit(p, "mov oC{n}, c0", 4, 2);
    }
}

#[test]
fn integer_boolean_address_label_and_predicate_registers() {
    // D3DVS_CONSTINTREG_MAX / CONSTBOOLREG_MAX 16 (vs_2_0+, ps_2_x+).
    for p in [Vs2_0, Vs2_x, Vs3_0, Ps2_x, Ps3_0] {
        at_limit(p, "defi i{n}, 1, 0, 0, 0", 16, 2);
        at_limit(p, "defb b{n}, true", 16, 2);
    }
    // D3DVS_ADDRREG_MAX 1.
    at_limit(Vs1_1, "mov a{n}.x, c0", 1, 2);
    at_limit(Vs2_0, "mova a{n}.x, c0.x", 1, 2);
    // D3DVS/PS_PREDICATE_MAX 1.
    for p in [Vs2_x, Vs3_0, Ps2_x, Ps3_0] {
        at_limit(p, "setp_gt p{n}, c0, c1", 1, 2);
    }
    // Labels: l0–l15 in vs_2_0/2_x and ps_2_x, D3DVS_LABEL_MAX_V3_0 2048.
    for p in [Vs2_0, Vs2_x, Ps2_x] {
        // call: instruction 1, label 2.
        at_limit(p, "call l{n}\nret\nlabel l{n}\nret", 16, 2);
    }
    // 2048 is also what 11 register-number bits can name: l2047 validates,
    // l2048 cannot even be written.
    for p in [Vs3_0, Ps3_0] {
        assert_eq!(check(p, "call l2047\nret\nlabel l2047\nret"), None);
        let text = format!("{}\ncall l2048", p.name());
        assert_eq!(assemble(&text).unwrap_err().kind(), "syntax");
    }
}

/// `count` copies of `line`, one per line.
fn repeat(line: &str, count: usize) -> String {
    vec![line; count].join("\n")
}

#[test]
fn arithmetic_instruction_slots() {
    // vs_1_1 128 (D3DVS_MAXINSTRUCTIONCOUNT_V1_1), vs_2_0/2_x 256, vs_3_0 and
    // ps_3_0 512 (the reference's minimum, what softhal reports), ps_2_x 512
    // (the PS20Caps maximum), ps_2_0 64 arithmetic, ps_1_x 8 arithmetic.
    for (p, n) in [
        (Vs1_1, 128),
        (Vs2_0, 256),
        (Vs2_x, 256),
        (Vs3_0, 512),
        (Ps1_1, 8),
        (Ps1_2, 8),
        (Ps1_3, 8),
        (Ps1_4, 8),
        (Ps2_0, 64),
        (Ps2_x, 512),
        (Ps3_0, 512),
    ] {
        assert_eq!(check(p, &repeat("mov r0, c0", n)), None, "{p}");
        // Each mov is 3 DWORDs: the (n+1)-th starts at 1 + 3n.
        assert_eq!(
            check(p, &repeat("mov r0, c0", n + 1)),
            Some(("too_many_slots", 1 + 3 * n)),
            "{p}"
        );
    }
}

#[test]
fn texture_instruction_slots() {
    // ps_2_0: 32 texture slots; the two dcl take DWORDs 1–6, each texld 4.
    let head = "dcl t0\ndcl_2d s0\n";
    let texld = "texld r0, t0, s0";
    assert_eq!(check(Ps2_0, &(head.to_string() + &repeat(texld, 32))), None);
    assert_eq!(
        check(Ps2_0, &(head.to_string() + &repeat(texld, 33))),
        Some(("too_many_slots", 7 + 4 * 32))
    );
    // ps_1_1–1_3: 4 texture slots (t0–t3 by tex), 8 arithmetic on top.
    let tex4 = "tex t0\ntex t1\ntex t2\ntex t3\n";
    assert_eq!(
        check(Ps1_1, &(tex4.to_string() + &repeat("mov r0, c0", 8))),
        None
    );
    // ps_1_4: 6 texture + 8 arithmetic per phase.
    let phase1 = repeat("texld r0, t0", 6) + "\n" + &repeat("mov r0, c0", 8);
    assert_eq!(check(Ps1_4, &format!("{phase1}\nphase\n{phase1}")), None);
    // A seventh texld in phase 1: 6 × 3 DWORDs before it.
    assert_eq!(
        check(Ps1_4, &repeat("texld r0, t0", 7)),
        Some(("too_many_slots", 1 + 3 * 6))
    );
}

#[test]
fn loop_and_rep_nesting() {
    // MaxStaticFlowControlDepth: 4 loop/rep levels in vs_2_x, vs_3_0,
    // ps_2_x, ps_3_0; 1 in vs_2_0. defi takes DWORDs 1–6, each rep 2.
    for (p, n) in [(Vs2_0, 1), (Vs2_x, 4), (Vs3_0, 4), (Ps2_x, 4), (Ps3_0, 4)] {
        let nest = |k: usize| {
            format!(
                "defi i0, 2, 0, 0, 0\n{}\n{}",
                repeat("rep i0", k),
                repeat("endrep", k)
            )
        };
        assert_eq!(check(p, &nest(n)), None, "{p}");
        assert_eq!(
            check(p, &nest(n + 1)),
            Some(("nesting_too_deep", 7 + 2 * n)),
            "{p}"
        );
    }
}

#[test]
fn if_nesting() {
    // MaxDynamicFlowControlDepth 24 in the 2_x/3_0 models; vs_2_0's static
    // flow count is 16. defb takes DWORDs 1–3, each `if b0` 2.
    for (p, n) in [
        (Vs2_0, 16),
        (Vs2_x, 24),
        (Vs3_0, 24),
        (Ps2_x, 24),
        (Ps3_0, 24),
    ] {
        let nest = |k: usize| {
            format!(
                "defb b0, true\n{}\n{}",
                repeat("if b0", k),
                repeat("endif", k)
            )
        };
        assert_eq!(check(p, &nest(n)), None, "{p}");
        assert_eq!(
            check(p, &nest(n + 1)),
            Some(("nesting_too_deep", 4 + 2 * n)),
            "{p}"
        );
    }
}

#[test]
fn call_nesting() {
    // Call nesting: 1 in vs_2_0, 4 in vs_2_x/vs_3_0/ps_2_x/ps_3_0. A chain
    // main → l0 → l1 → …; the error names main's call (DWORD 1).
    for (p, n) in [(Vs2_0, 1), (Vs2_x, 4), (Vs3_0, 4), (Ps3_0, 4)] {
        let chain = |k: usize| {
            let mut s = String::from("call l0\nret\n");
            for i in 0..k {
                s += &format!("label l{i}\n");
                if i + 1 < k {
                    s += &format!("call l{}\n", i + 1);
                }
                s += "ret\n";
            }
            s
        };
        assert_eq!(check(p, &chain(n)), None, "{p}");
        assert_eq!(
            check(p, &chain(n + 1)),
            Some(("nesting_too_deep", 1)),
            "{p}"
        );
    }
}
