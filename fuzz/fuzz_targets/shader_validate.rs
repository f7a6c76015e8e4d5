//! Shader validation of arbitrary tokens: the front end and the validator
//! never panic, allocate at most in proportion to the stream, and every
//! stream that validates survives disassembly and reassembly bit for bit
//! (`asm(disasm(t)) == t`, comments aside). The first byte picks the version token (so the
//! fuzzer need not guess one); the rest are little-endian DWORDs.
#![no_main]
use libfuzzer_sys::fuzz_target;
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
        }
        Err(e) => {
            assert!(e.dword <= tokens.len(), "offset past the stream");
            let _ = e.kind();
        }
    }
});
