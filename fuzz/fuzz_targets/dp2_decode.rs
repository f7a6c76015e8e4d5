//! DP2 decoding of arbitrary bytes: never panics, the walk is the same
//! wherever the bytes sit (no read outside the slice), and decoding
//! allocates nothing at all (the wire crate's "no allocation proportional
//! to an untrusted count", checked as its strongest form: zero). The first
//! two bytes choose the vertex stride and the base alignment.
#![no_main]
use libfuzzer_sys::fuzz_target;
use softhal_wire::{Command, DecodeOptions, Decoder};

#[path = "common/mod.rs"]
mod common;

#[global_allocator]
static ALLOC: common::Counting = common::Counting;

/// The walk of [`walk`] without collecting anything: (commands, end).
fn count(bytes: &[u8], opts: DecodeOptions) -> (usize, usize) {
    let (mut n, mut end) = (0, 0);
    let mut dec = Decoder::new(bytes, opts);
    while let Some(item) = dec.next() {
        match item {
            Ok(c) => {
                n += 1;
                end = c.offset + c.size;
                if let Command::Unknown { .. } = c.command {
                    if dec.resume_at(c.offset + 4).is_err() {
                        break;
                    }
                }
            }
            Err(e) => {
                end = e.offset;
                break;
            }
        }
    }
    (n, end)
}

fn walk(bytes: &[u8], opts: DecodeOptions) -> Vec<(usize, usize, u8, Option<String>)> {
    let mut out = Vec::new();
    let mut dec = Decoder::new(bytes, opts);
    while let Some(item) = dec.next() {
        match item {
            Ok(c) => {
                assert!(
                    c.offset + c.size <= bytes.len()
                        || matches!(c.command, Command::Unknown { .. })
                );
                out.push((c.offset, c.size, c.header.command, None));
                if let Command::Unknown { .. } = c.command {
                    // Pretend a host skips 4 bytes, as D3dParseUnknownCommand may.
                    if dec.resume_at(c.offset + 4).is_err() {
                        break;
                    }
                }
            }
            Err(e) => {
                out.push((
                    e.offset,
                    0,
                    e.opcode.unwrap_or(0),
                    Some(e.kind.code().to_string()),
                ));
                break;
            }
        }
    }
    out
}

fuzz_target!(|data: &[u8]| {
    let [stride, align, rest @ ..] = data else {
        return;
    };
    let opts = DecodeOptions {
        vertex_stride: u32::from(*stride % 64),
        base_align: usize::from(*align & 3),
    };
    let ((n, _), usage) = common::measure(|| count(rest, opts));
    assert_eq!(usage.allocations, 0, "decoding allocated ({usage:?})");
    let reference = walk(rest, opts);
    assert!(reference.len() >= n);
    // The same bytes inside padding at an offset with the same alignment.
    let mut padded = vec![0xA5u8; 4];
    padded.extend_from_slice(rest);
    padded.extend_from_slice(&[0x5A; 7]);
    let inner = &padded[4..4 + rest.len()];
    assert_eq!(walk(inner, opts), reference);
});
