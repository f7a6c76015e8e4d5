//! decode → encode → decode: whatever prefix of arbitrary bytes decodes
//! re-encodes to bytes that decode to the same commands, and canonical
//! commands re-encode byte for byte.
#![no_main]
use libfuzzer_sys::fuzz_target;
use softhal_wire::{decode_all, encode_all, Command, DecodeOptions, Decoder};

fuzz_target!(|data: &[u8]| {
    let [stride, rest @ ..] = data else { return };
    let opts = DecodeOptions {
        vertex_stride: u32::from(*stride % 48),
        base_align: 0,
    };
    let mut cmds = Vec::new();
    for item in Decoder::new(rest, opts) {
        match item {
            Ok(c) if !matches!(c.command, Command::Unknown { .. }) => cmds.push(c),
            _ => break,
        }
    }
    let list: Vec<Command<'_>> = cmds.iter().map(|c| c.command).collect();
    let Ok(bytes) = encode_all(&list, opts) else {
        return;
    };
    let again = decode_all(&bytes, opts).expect("re-encoded stream must decode");
    assert_eq!(again.len(), cmds.len());
    for (a, b) in again.iter().zip(&cmds) {
        assert_eq!(a.command, b.command);
    }
    assert_eq!(
        encode_all(&again.iter().map(|c| c.command).collect::<Vec<_>>(), opts).unwrap(),
        bytes
    );
});
