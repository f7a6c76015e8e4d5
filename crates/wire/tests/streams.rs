//! Whole-stream tests: the golden disassembly of a stream holding every
//! opcode, per-opcode round trips, truncation at every byte, random
//! streams, and placement at every alignment.

mod common;

use common::{check_golden, random_stream, testdata};
use softhal_wire::text::{assemble, disassemble};
use softhal_wire::{
    decode_all, encode_all, DecodeErrorKind, DecodeOptions, Decoder, Encoder, Opcode,
};

/// `.fvf D3DFVF_XYZRHW|D3DFVF_DIFFUSE`: 20-byte vertices.
const OPTS: DecodeOptions = DecodeOptions {
    vertex_stride: 20,
    base_align: 0,
};

fn all_opcodes() -> Vec<u8> {
    let src = std::fs::read_to_string(testdata("dp2/all-opcodes.dp2s")).unwrap();
    assemble(&src).unwrap()
}

#[test]
fn every_opcode_has_a_golden_disassembly() {
    let bytes = all_opcodes();
    let cmds = decode_all(&bytes, OPTS).unwrap();
    let mut seen: Vec<u8> = cmds.iter().map(|c| c.header.command).collect();
    seen.sort_unstable();
    seen.dedup();
    assert_eq!(seen.len(), 84, "the stream must hold all 84 opcodes");
    assert_eq!(
        seen,
        Opcode::ALL.iter().map(|o| o.raw()).collect::<Vec<_>>()
    );

    let d = disassemble(&bytes, Some(0x44), OPTS);
    assert!(d.error.is_none());
    check_golden(&testdata("dp2/all-opcodes.disasm"), &d.text);
    // The disassembly assembles back to the same bytes.
    assert_eq!(assemble(&d.text).unwrap(), bytes);
}

#[test]
fn each_opcode_round_trips_alone() {
    let bytes = all_opcodes();
    for cmd in decode_all(&bytes, OPTS).unwrap() {
        let one = &bytes[cmd.offset..cmd.offset + cmd.size];
        // The IMM pad depends on the absolute position: keep it.
        let opts = DecodeOptions {
            base_align: cmd.offset & 3,
            ..OPTS
        };
        let again = encode_all(&[cmd.command], opts).unwrap();
        assert_eq!(
            again,
            one,
            "{}",
            Opcode::from_raw(cmd.header.command).unwrap().name()
        );
        let back = decode_all(&again, opts).unwrap();
        assert_eq!(back.len(), 1);
        assert_eq!(back[0].command, cmd.command);
        assert_eq!(back[0].size, cmd.size);
    }
}

#[test]
fn cutting_a_stream_anywhere_fails_exactly_at_the_cut_command() {
    let bytes = all_opcodes();
    let cmds = decode_all(&bytes, OPTS).unwrap();
    let starts: Vec<usize> = cmds.iter().map(|c| c.offset).collect();
    for cut in 0..=bytes.len() {
        let prefix = &bytes[..cut];
        let result = decode_all(prefix, OPTS);
        if cut == bytes.len() || starts.contains(&cut) {
            let n = result
                .unwrap_or_else(|e| panic!("cut at boundary {cut}: {e}"))
                .len();
            assert_eq!(n, starts.iter().filter(|&&s| s < cut).count());
        } else {
            let e = result.expect_err("a cut inside a command must fail");
            let owner = *starts.iter().rfind(|&&s| s < cut).unwrap();
            assert_eq!(e.offset, owner, "cut at {cut}");
            assert!(
                matches!(
                    e.kind,
                    DecodeErrorKind::TruncatedHeader { .. }
                        | DecodeErrorKind::TruncatedPayload { .. }
                        | DecodeErrorKind::ImmDataPastEnd { .. }
                        | DecodeErrorKind::BadResponseSize { .. }
                ),
                "cut at {cut}: {e}"
            );
        }
    }
}

#[test]
fn random_canonical_streams_round_trip_through_bytes_and_text() {
    for seed in 0..300u64 {
        for base_align in [0usize, 2] {
            let opts = DecodeOptions {
                vertex_stride: 20,
                base_align,
            };
            let bytes = random_stream(seed, 40, opts);
            let cmds = decode_all(&bytes, opts).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
            let re = encode_all(&cmds.iter().map(|c| c.command).collect::<Vec<_>>(), opts).unwrap();
            assert_eq!(re, bytes, "seed {seed}: encode(decode(b)) != b");
            let back = decode_all(&re, opts).unwrap();
            assert_eq!(back, cmds, "seed {seed}: decode(encode(x)) != x");
            let text = disassemble(&bytes, None, opts);
            assert!(text.error.is_none());
            let stride_line = format!(".stride 20\n{}", text.text);
            assert_eq!(
                softhal_wire::text::assemble_with(&stride_line, opts).unwrap(),
                bytes,
                "seed {seed}: asm(disasm(b)) != b"
            );
        }
    }
}

#[test]
fn the_same_stream_decodes_identically_at_any_placement() {
    // A stream without _IMM commands does not depend on its address: place
    // it inside random padding at every offset and compare.
    let opts = DecodeOptions {
        vertex_stride: 20,
        base_align: 0,
    };
    let bytes = random_stream(7, 60, opts);
    let reference = decode_all(&bytes, opts).unwrap();
    for pad in 0..8 {
        let mut buf = vec![0xAAu8; pad];
        buf.extend_from_slice(&bytes);
        buf.extend_from_slice(&[0x55; 13]);
        let window = &buf[pad..pad + bytes.len()];
        let base_align = pad & 3;
        if base_align % 4 != 0
            && reference
                .iter()
                .any(|c| matches!(c.header.command, 23 | 24))
        {
            continue;
        }
        let got = decode_all(window, DecodeOptions { base_align, ..opts }).unwrap();
        assert_eq!(got.len(), reference.len());
        for (a, b) in got.iter().zip(&reference) {
            assert_eq!((a.offset, a.size, a.command), (b.offset, b.size, b.command));
        }
    }
}

#[test]
fn random_bytes_never_panic_and_errors_point_at_a_command_start() {
    let mut rng = common::Rng(99);
    for _ in 0..20_000 {
        let len = rng.below(96) as usize;
        let mut bytes = rng.bytes(len);
        // Bias towards known opcodes.
        for i in (0..bytes.len()).step_by(6) {
            if rng.below(2) == 0 {
                bytes[i] = Opcode::ALL[rng.below(84) as usize].raw();
            }
        }
        let mut last_end = 0;
        let mut dec = Decoder::new(
            &bytes,
            DecodeOptions {
                vertex_stride: (rng.below(3) * 12) as u32,
                base_align: 0,
            },
        );
        for item in &mut dec {
            match item {
                Ok(c) => {
                    assert_eq!(c.offset, last_end);
                    last_end = c.offset + c.size;
                    assert!(
                        last_end <= bytes.len()
                            || matches!(c.command, softhal_wire::Command::Unknown { .. })
                    );
                }
                Err(e) => {
                    assert_eq!(e.offset, last_end);
                    break;
                }
            }
        }
    }
}

#[test]
fn unknown_opcodes_pause_the_walk_until_the_host_says_where_to_go() {
    let mut e = Encoder::new(OPTS);
    e.render_states(&[(7, 1)]).unwrap();
    let unknown_at = e.len();
    e.raw(&[200, 0, 3, 0, 1, 2, 3, 4]); // opcode 200, 4 bytes the host knows about
    let resume = e.len();
    e.viewport(0, 0, 8, 8).unwrap();
    let bytes = e.into_bytes();

    let mut dec = Decoder::new(&bytes, OPTS);
    assert!(matches!(dec.next(), Some(Ok(c)) if c.header.command == 8));
    let unk = dec.next().unwrap().unwrap();
    assert_eq!(unk.offset, unknown_at);
    assert_eq!(unk.command, softhal_wire::Command::Unknown { opcode: 200 });
    assert!(dec.next().is_none(), "paused until resumed");
    dec.resume_at(resume).unwrap();
    assert!(matches!(dec.next(), Some(Ok(c)) if c.header.command == 28));
    assert!(dec.next().is_none());

    // A host answer that would not move forward is refused.
    let mut dec = Decoder::new(&bytes, OPTS);
    dec.next();
    dec.next();
    let err = dec.resume_at(unknown_at).unwrap_err();
    assert_eq!(err.kind.code(), "bad_resume");
    assert_eq!(err.offset, unknown_at);

    // Tools without a host report it as an error at its offset.
    let err = decode_all(&bytes, OPTS).unwrap_err();
    assert_eq!(
        (err.offset, err.kind.code()),
        (unknown_at, "unknown_opcode")
    );
}

/// Found in review: RESPONSECONTINUE lost a non-zero header count.
#[test]
fn regression_responsecontinue_keeps_its_count() {
    let src = ".raw hex:5700050008000000";
    let b = assemble(src).unwrap();
    let d = disassemble(&b, None, OPTS);
    assert!(d.text.contains("count=5"), "{}", d.text);
    assert_eq!(assemble(&d.text).unwrap(), b);
}

/// Found in review: LINELIST_IMM with N = 0 needs no stride and must round-trip.
#[test]
fn regression_empty_linelist_imm_round_trips_without_fvf() {
    let opts = DecodeOptions {
        vertex_stride: 0,
        base_align: 0,
    };
    let b = vec![24, 0, 0, 0];
    let d = disassemble(&b, None, opts);
    assert!(d.error.is_none());
    assert_eq!(softhal_wire::text::assemble_with(&d.text, opts).unwrap(), b);
}

/// Found in review: the assembler silently ignored stray items.
#[test]
fn regression_assembler_rejects_what_it_would_ignore() {
    for bad in [
        "TRIANGLELIST count=1 { wVStart=5 }",
        "RESPONSECONTINUE { dwTotalSize=12 }",
        "LINELIST_IMM count=0 dwEdgeFlags=1",
        "CLEAR count=2 { dwFlags=1 } { right=1 }",
        "RENDERSTATE count=2 { RenderState=7 }",
        "SETLIGHT count=3 { dwIndex=0 }",
    ] {
        assert!(assemble(bad).is_err(), "accepted: {bad}");
    }
    assert!(assemble("CLEAR count=1 { dwFlags=1 } { right=1 }").is_ok());
    assert!(assemble("UPDATEPALETTE count=7 { dwPaletteHandle=1 }").is_ok());
}

/// Found in review: an unknown opcode must print as something that assembles.
#[test]
fn regression_unknown_opcode_formats_as_raw_header() {
    let b = [5u8, 0, 3, 0];
    let cmd = softhal_wire::decode_at(&b, 0, OPTS).unwrap();
    let line = softhal_wire::text::format_command(&cmd);
    assert_eq!(assemble(&line).unwrap(), b, "{line}");
}
