//! Shader validation of arbitrary tokens: the front end and the validator
//! never panic, allocate at most in proportion to the stream, and every
//! stream that validates survives disassembly and reassembly bit for bit
//! (`asm(disasm(t)) == t`, comments aside) and then executes without
//! panicking, within the executed-instruction limit, on constants and
//! inputs taken from the stream itself (`exec`). The DWORDs after the
//! version token are also read as a DX8 declaration (`decl8`), which must
//! survive its text form bit for bit. The first byte picks the
//! version token (so the fuzzer need not guess one); the rest are
//! little-endian DWORDs.
#![no_main]
use libfuzzer_sys::fuzz_target;
use softhal_shader::exec::{self, Constants, NoTextures, Program, Registers};
use softhal_shader::ir::Profile;
use softhal_shader::text::{assemble, disassemble};

#[path = "common/mod.rs"]
mod common;

#[global_allocator]
static ALLOC: common::Counting = common::Counting;

fuzz_target!(|bytes: &[u8]| {
    let Some((&pick, rest)) = bytes.split_first() else {
        return;
    };
    let profile = Profile::ALL[usize::from(pick) % Profile::ALL.len()];
    let mut tokens = vec![profile.token()];
    tokens.extend(
        rest.chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])),
    );
    let (result, usage) = common::measure(|| softhal_shader::parse_and_validate(&tokens));
    // The IR holds at most one instruction (with ≤ 4 sources) per token.
    let bound = 256 * tokens.len() * 4 + 4096;
    common::note_peak("shader_validate", usage.peak, bound);
    assert!(
        usage.peak <= bound,
        "peak {} bytes for {} tokens",
        usage.peak,
        tokens.len()
    );
    // The same DWORDs after the version token, read as a DirectX 8 vertex
    // shader declaration: what decodes re-encodes to itself, and its
    // D3DVSD_* text reads back to the same declaration.
    let decl = tokens.get(1..).unwrap_or(&[]);
    if let Ok(d) = softhal_shader::decl8::parse(decl) {
        assert_eq!(d.to_tokens(), decl);
        let text = softhal_shader::decl8::disassemble(&d);
        let back = softhal_shader::decl8::assemble(&text).unwrap_or_else(|e| panic!("{text}\n{e}"));
        assert_eq!(back, d, "{text}");
    }
    match result {
        Ok(valid) => {
            // Comments are not part of the IR: a stream with comments
            // comes back without them, anything else bit for bit.
            let canonical = valid.shader().to_tokens();
            assert!(canonical == tokens || canonical.len() < tokens.len());
            let text = disassemble(valid.shader());
            let back = assemble(&text).unwrap_or_else(|e| panic!("{text}\n{e}"));
            assert_eq!(back.to_tokens(), canonical, "{text}");
            if canonical == tokens {
                // Offsets included.
                assert_eq!(&back, valid.shader());
            }
            // Execution: constants and inputs are the stream's DWORDs
            // (any bit pattern: NaN, infinities, huge loop counts).
            let word = |i: usize| tokens.get(i % tokens.len()).copied().unwrap_or(0);
            let constants = Constants {
                float: (0..256).map(|i| [0, 1, 2, 3].map(|c| f32::from_bits(word(4 * i + c)))).collect(),
                int: (0..16).map(|i| [0, 1, 2, 3].map(|c| word(7 * i + c) as i32)).collect(),
                bool: (0..16).map(|i| word(i) & 1 != 0).collect(),
            };
            let program = Program::new(valid);
            let mut regs = Registers::new(&program);
            for (k, r) in regs.input.iter_mut().chain(regs.texcoord.iter_mut()).enumerate() {
                *r = std::array::from_fn(|l| [0, 1, 2, 3].map(|c| f32::from_bits(word(k * 16 + l * 4 + c))));
            }
            let stats = program.run(&mut regs, &program.bind(&constants), &NoTextures, exec::ALL_LANES);
            assert!(stats.executed <= exec::MAX_INSTRUCTIONS_EXECUTED);
        }
        Err(e) => {
            assert!(e.dword <= tokens.len(), "offset past the stream");
            let _ = e.kind();
        }
    }
});
