//! The assembler on arbitrary text never panics, and what it assembles
//! disassembles and re-assembles to the same bytes when it decodes.
#![no_main]
use libfuzzer_sys::fuzz_target;
use softhal_wire::text::{assemble_with, disassemble};
use softhal_wire::DecodeOptions;

fuzz_target!(|data: &[u8]| {
    let Ok(src) = std::str::from_utf8(data) else {
        return;
    };
    let opts = DecodeOptions {
        vertex_stride: 20,
        base_align: 0,
    };
    let Ok(bytes) = assemble_with(src, opts) else {
        return;
    };
    let d = disassemble(&bytes, None, opts);
    if d.error.is_none() {
        let text = format!(".stride 20\n{}", d.text);
        assert_eq!(
            assemble_with(&text, opts).expect("disassembly must assemble"),
            bytes
        );
    }
});
