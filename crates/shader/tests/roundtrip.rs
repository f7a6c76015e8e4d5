//! `assemble(disassemble(tokens)) == tokens` for hand-written programs of
//! every version and for generated valid programs; random and mutated
//! token streams never panic and are handled in bounded time.

use proptest::prelude::*;
use softhal_shader::corpus::{self, EXAMPLES};
use softhal_shader::ir::Profile;
use softhal_shader::text::{assemble, disassemble};
use softhal_shader::{parse, parse_and_validate};

#[test]
fn every_example_validates_and_round_trips() {
    for text in EXAMPLES {
        let shader = assemble(text).unwrap_or_else(|e| panic!("{text}\n{e}"));
        let tokens = shader.to_tokens();
        let parsed = parse(&tokens).unwrap_or_else(|e| panic!("{text}\n{e}"));
        assert_eq!(parsed, shader, "{text}");
        parse_and_validate(&tokens).unwrap_or_else(|e| panic!("{text}\n{e}"));
        let printed = disassemble(&parsed);
        let back = assemble(&printed).unwrap_or_else(|e| panic!("{printed}\n{e}"));
        assert_eq!(back.to_tokens(), tokens, "{printed}");
        // Printing is a fixed point.
        assert_eq!(disassemble(&back), printed);
    }
}

#[test]
fn examples_cover_every_version() {
    let mut seen: Vec<Profile> = EXAMPLES
        .iter()
        .map(|t| assemble(t).unwrap().profile)
        .collect();
    seen.sort();
    seen.dedup();
    let mut all = Profile::ALL.to_vec();
    all.retain(|p| *p != Profile::Ps1_2);
    assert_eq!(seen, all);
}

#[test]
fn documented_syntax_variants_assemble_to_the_same_tokens() {
    let pairs = [
        (
            "vs_2_0\ndcl_position v0\nmov r0, v0",
            "vs_2_0\ndcl_position0 v0\nmov r0, v0.xyzw",
        ),
        ("vs_2_0\nmov r0, c9[a0.x]", "vs_2_0\nmov r0, c[a0.x + 9]"),
        ("ps_2_0\nmov r0.xyz, c0.xxxx", "ps_2_0\nmov r0.rgb, c0.r"),
        ("vs.1.1\nmov oPos, c0", "vs_1_1\nMOV OPOS, C0 ; a comment"),
    ];
    for (a, b) in pairs {
        assert_eq!(
            assemble(a).unwrap().to_tokens(),
            assemble(b).unwrap().to_tokens(),
            "{a} / {b}"
        );
    }
}

/// Generated programs: declarations the version needs, then arithmetic on
/// in-range registers with random masks, swizzles and allowed modifiers.
fn program() -> impl Strategy<Value = String> {
    let profiles = prop::sample::select(vec![
        Profile::Vs1_1,
        Profile::Vs2_0,
        Profile::Vs2_x,
        Profile::Vs3_0,
        Profile::Ps2_0,
        Profile::Ps2_x,
        Profile::Ps3_0,
    ]);
    let line = (
        0usize..8,
        0u8..12,
        1u8..16,
        prop::collection::vec((0u8..3, 0u8..32, any::<u8>(), 0u8..3), 3),
        any::<bool>(),
    );
    (profiles, prop::collection::vec(line, 1..40)).prop_map(|(p, lines)| {
        let mut out = format!("{}\n", p.name());
        let vs3_or_ps3 = matches!(p, Profile::Vs3_0 | Profile::Ps3_0);
        out += match p {
            Profile::Vs1_1 => "",
            Profile::Vs2_0 | Profile::Vs2_x => "dcl_position v0\n",
            Profile::Vs3_0 => "dcl_position v0\ndcl_position o0\n",
            Profile::Ps2_0 | Profile::Ps2_x => "dcl v0\ndcl t0\n",
            _ => "dcl_texcoord v0\n",
        };
        for (op, dst, mask, srcs, sat) in lines {
            let (name, n) = [
                ("mov", 1),
                ("add", 2),
                ("mul", 2),
                ("mad", 3),
                ("dp3", 2),
                ("dp4", 2),
                ("min", 2),
                ("max", 2),
            ][op];
            let mut l = name.to_string();
            if sat && (vs3_or_ps3 || !p.is_vertex()) {
                l += "_sat";
            }
            let comps = ["x", "y", "z", "w"];
            let m: String = (0..4)
                .filter(|i| mask & (1 << i) != 0)
                .map(|i| comps[i])
                .collect();
            l += &format!(" r{dst}.{m}");
            for (kind, idx, sw, modifier) in srcs.into_iter().take(n) {
                let reg = match kind {
                    0 => format!("r{}", idx % 12),
                    1 => format!("c{idx}"),
                    _ if p == Profile::Ps2_0 || p == Profile::Ps2_x => "t0".to_string(),
                    _ => "v0".to_string(),
                };
                let sw: String = (0..4)
                    .map(|i| comps[usize::from((sw >> (2 * i)) & 3)])
                    .collect();
                let (pre, post) = match modifier {
                    1 => ("-", ""),
                    2 if vs3_or_ps3 => ("-", "_abs"),
                    _ => ("", ""),
                };
                l += &format!(", {pre}{reg}{post}.{sw}");
            }
            out += &l;
            out.push('\n');
        }
        out
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn generated_programs_validate_and_round_trip(text in program()) {
        let shader = assemble(&text).map_err(|e| TestCaseError::fail(format!("{text}\n{e}")))?;
        let tokens = shader.to_tokens();
        let valid = parse_and_validate(&tokens)
            .map_err(|e| TestCaseError::fail(format!("{text}\n{e}")))?;
        let back = assemble(&disassemble(valid.shader())).unwrap();
        prop_assert_eq!(back.to_tokens(), tokens);
    }

    #[test]
    fn random_streams_never_panic(
        version in prop::sample::select(Profile::ALL.to_vec()),
        body in prop::collection::vec(any::<u32>(), 0..64),
    ) {
        let mut tokens = vec![version.token()];
        tokens.extend(body);
        tokens.push(0x0000_FFFF);
        if let Ok(v) = parse_and_validate(&tokens) {
            // Comments are dropped; everything else comes back exactly.
            let canonical = v.shader().to_tokens();
            prop_assert!(canonical == tokens || canonical.len() < tokens.len());
            let back = assemble(&disassemble(v.shader())).unwrap();
            prop_assert_eq!(back.to_tokens(), canonical);
        }
    }

    #[test]
    fn mutated_workload_streams_never_panic(
        which in 0usize..3,
        flips in prop::collection::vec((any::<prop::sample::Index>(), 0u32..32), 1..4),
    ) {
        let base = [corpus::W7_VS_TOKENS, corpus::W7_PS_TOKENS, corpus::W8_PS_TOKENS][which];
        let mut tokens = base.to_vec();
        for (i, bit) in flips {
            let k = i.index(tokens.len());
            tokens[k] ^= 1 << bit;
        }
        if let Ok(v) = parse_and_validate(&tokens) {
            // Comments are dropped; everything else comes back exactly.
            let canonical = v.shader().to_tokens();
            prop_assert!(canonical == tokens || canonical.len() < tokens.len());
            let back = assemble(&disassemble(v.shader())).unwrap();
            prop_assert_eq!(back.to_tokens(), canonical);
        }
    }

    #[test]
    fn random_text_never_panics(text in "[a-z0-9_ ,.\\[\\]+()!-]{0,80}") {
        let _ = assemble(&format!("ps_2_0\n{text}"));
        let _ = assemble(&format!("vs_1_1\n{text}"));
    }
}

#[test]
fn long_streams_are_handled_in_bounded_time() {
    let start = std::time::Instant::now();
    // 4 M DWORDs of comments, then 1 M nops: linear work.
    let mut tokens = vec![0xFFFE_0300];
    for _ in 0..1024 {
        tokens.push(0x0FFF_FFFE);
        tokens.extend(std::iter::repeat_n(0u32, 0x0FFF));
    }
    tokens.extend(std::iter::repeat_n(0u32, 1 << 20));
    tokens.push(0x0000_FFFF);
    let e = parse_and_validate(&tokens).unwrap_err();
    assert_eq!(e.kind(), "too_many_slots");
    // A huge nop-only stream still parses (the validator then rejects it).
    assert!(parse(&tokens).is_ok());
    assert!(start.elapsed() < std::time::Duration::from_secs(10));
}

#[test]
fn comments_are_dropped_and_the_rest_round_trips() {
    // Found by the shader_validate fuzz target: an empty comment between
    // two W7 instructions.
    let mut tokens = corpus::W7_VS_TOKENS.to_vec();
    tokens.insert(23, 0x0000_FFFE);
    let v = parse_and_validate(&tokens).unwrap();
    assert_eq!(v.shader().to_tokens(), corpus::W7_VS_TOKENS);
}
