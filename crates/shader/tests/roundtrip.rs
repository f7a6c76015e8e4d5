//! `assemble(disassemble(tokens)) == tokens` for hand-written programs of
//! every version and for generated valid programs; random and mutated
//! token streams never panic and are handled in bounded time.

mod common;

use proptest::prelude::*;
use softhal_shader::ir::Profile;
use softhal_shader::text::{assemble, disassemble};
use softhal_shader::{parse, parse_and_validate};

/// Programs in the syntax of the Direct3D 9 assembly reference, one per
/// version, using that version's instructions and modifiers.
const EXAMPLES: &[&str] = &[
    "vs_1_1
dcl_position v0
dcl_normal v3
def c90, 1.0, 0.5, 0, -2.5
m4x4 oPos, v0, c0
mov a0.x, c4.x
dp3 r0.x, v3, c[a0.x + 10]
lit r1, r0
expp r2, r0.w
logp r3.y, r0.x
frc r4.xy, r0
sge r5, r0, -c5.yzxw
mov oD0, r1
mov oFog, r0.x
mov oPts, c6.w
mov oT7.xy, v0",
    "vs_2_0
def c7, 3.0, 1.0, 0.0, 0.0
defi i0, 4, 0, 1, 0
defb b3, true
dcl_position v0
dcl_texcoord2 v5
mova a0.x, c7.x
rep i0
add r0, r0, c9[a0.x]
endrep
if b3
call l2
else
callnz l3, b3
endif
loop aL, i0
add r1, r1, c10[aL]
endloop
sincos r2.xy, r0.x, c1, c2
sgn r3, r0, r4, r5
nrm r6.xyz, v5
pow r7.x, r0.x, c7.y
crs r8.xyz, r0, r1
abs r9, -r0
lrp r10, r0, r1, r2
mov oPos, v0
ret
label l2
mov oT0, c0
ret
label l3
ret",
    "vs_2_x
defi i0, 8, 0, 1, 0
dcl_position v0
setp_ge p0.xy, v0, c3
(p0.x) mov r0, v0
(!p0.y) add r0.x, r0, c1
rep i0
breakp p0.x
break_lt r0.x, c2.y
endrep
if_ne r0.y, c4.x
if p0.z
mov r1, c5
endif
endif
mov oPos, r0",
    "vs_3_0
dcl_position v0
dcl_texcoord3 v1
dcl_position o0
dcl_texcoord1 o3.xy
dcl_color o4
dcl_2d s0
dcl_cube s1
defi i1, 10, 0, 1, 0
texldl r0, v1, s0
mov_sat r1, -r0_abs
loop aL, i1
add r2, r2, v[aL]
mov o[aL], r2
endloop
mov o0, v0
mov o3.xy, r0
mov o4, r1",
    "ps_1_1
def c7, 0.5, 0.25, 1, 1
tex t0
texbem t1, t0
texm3x2pad t2, t0_bx2
texm3x2tex t3, t0_bx2
mul_x2 r0, t0, v0
+add_sat r0.a, 1-t1, c1_bias
mad_d2 r1.rgb, -t3_bx2, c2, r0
cnd r0, r0.a, r1, c7",
    "ps_1_3
tex t0
texm3x3pad t1, t0_bx2
texm3x3pad t2, t0_bx2
texm3x3spec t3, t0_bx2, c0
cmp r0, t3, c1, -c2_bias
dp4 r1, r0, v1",
    "ps_1_4
def c0, 1, 0, 0, 1
texld r0, t0
texcrd r1.xyz, t1_dz
texld r2, t2_dw.xyw
bem r3.xy, r0, r1
mov_x4 r4, -c0_x2
phase
texld r5, r3
texdepth r5
cmp r0, r4, r5, c0",
    "ps_2_0
dcl t0.xy
dcl_centroid t1
dcl_pp v0.rgb
dcl_2d s0
dcl_cube s1
dcl_volume s2
texld r0, t0, s0
texldp r1, t1, s1
texldb_pp r2, t1, s2
texkill r0
dp2add r3.x, r0, c0, c1.x
mul_sat r4, r0, v0.bgra
mov oC0, r4
mov oC1, r1
mov oDepth, r3.x",
    "ps_2_x
defb b0, false
defi i0, 3, 0, 1, 0
dcl t0
dcl_2d s0
rep i0
dsx r0, t0
dsy r1, t0
texldd r2, t0, s0, r0, r1
endrep
setp_eq p0, r2, c0
(p0) mov r3, c1
if b0
call l1
endif
mov oC0, r3
ret
label l1
mov r3, c2
ret",
    "ps_3_0
dcl vPos.xy
dcl vFace
dcl_texcoord0 v0
dcl_color1_centroid v1
dcl_2d s15
defi i2, 4, 0, 1, 0
texldl r0, v0, s15
loop aL, i2
add r1, r1, v[aL]
add r1, r1, c10[aL]
endloop
if_gt vFace, c0.x
mov r0.xy, vPos
endif
mov_pp oC3, -r0_abs
mov oDepth, r1.x",
];

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
        let base = [common::workloads::W7_VS_TOKENS, common::workloads::W7_PS_TOKENS, common::workloads::W8_PS_TOKENS][which];
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
    let mut tokens = common::workloads::W7_VS_TOKENS.to_vec();
    tokens.insert(23, 0x0000_FFFE);
    let v = parse_and_validate(&tokens).unwrap();
    assert_eq!(v.shader().to_tokens(), common::workloads::W7_VS_TOKENS);
}
