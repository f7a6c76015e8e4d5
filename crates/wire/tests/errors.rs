//! Each decode error kind, at its exact offset, with its numbers.

use softhal_wire::{decode_all, DecodeErrorKind as K, DecodeOptions, Encoder};

const OPTS: DecodeOptions = DecodeOptions {
    vertex_stride: 20,
    base_align: 0,
};

fn prefix() -> Encoder {
    let mut e = Encoder::new(OPTS);
    e.render_states(&[(7, 1), (22, 1)]).unwrap(); // 20 bytes
    e
}

#[test]
fn truncated_header() {
    let mut e = prefix();
    e.raw(&[8, 0]);
    let err = decode_all(e.bytes(), OPTS).unwrap_err();
    assert_eq!((err.offset, err.opcode), (20, Some(8)));
    assert_eq!(err.kind, K::TruncatedHeader { available: 2 });
    assert!(
        err.to_string()
            .contains("at byte offset 20 (D3DDP2OP_RENDERSTATE)"),
        "{err}"
    );
}

#[test]
fn truncated_payload_says_needed_and_available() {
    let mut e = prefix();
    e.raw(&[8, 0, 3, 0]).raw(&[0; 20]); // 3 render states need 24 bytes
    let err = decode_all(e.bytes(), OPTS).unwrap_err();
    assert_eq!(err.offset, 20);
    assert_eq!(
        err.kind,
        K::TruncatedPayload {
            needed: 24,
            available: 20
        }
    );
}

#[test]
fn imm_vertices_past_the_end() {
    let mut e = prefix();
    // TRIANGLEFAN_IMM, 1 triangle: 3 × 20 bytes after edge flags at 28..
    e.raw(&[23, 0, 1, 0, 7, 0, 0, 0]).raw(&[0; 59]);
    let err = decode_all(e.bytes(), OPTS).unwrap_err();
    assert_eq!(err.offset, 20);
    assert_eq!(
        err.kind,
        K::ImmDataPastEnd {
            data_offset: 28,
            needed: 60,
            available: 59
        }
    );
}

#[test]
fn imm_needs_a_stride() {
    let mut e = prefix();
    e.raw(&[24, 0, 1, 0]);
    let opts = DecodeOptions {
        vertex_stride: 0,
        base_align: 0,
    };
    let err = decode_all(e.bytes(), opts).unwrap_err();
    assert_eq!((err.offset, err.kind.clone()), (20, K::NoVertexStride));
}

#[test]
fn imm_alignment_uses_the_absolute_address() {
    // Header at offset 2 of a buffer whose byte 0 sits at address ≡ 2 (mod 4):
    // the vertices start after header+flags at absolute 4+2+8 → no pad at
    // base 2 for LINELIST_IMM header at 0: data at 4 → abs 6 → pad 2.
    let mut e = Encoder::new(DecodeOptions {
        vertex_stride: 20,
        base_align: 2,
    });
    e.line_list_imm(1, &[0x11; 40]).unwrap();
    let b = e.into_bytes();
    assert_eq!(b.len(), 4 + 2 + 40, "two pad bytes before the vertices");
    assert_eq!(&b[4..6], &[0, 0]);
    let cmds = decode_all(
        &b,
        DecodeOptions {
            vertex_stride: 20,
            base_align: 2,
        },
    )
    .unwrap();
    assert_eq!(cmds[0].size, 46);
    // The same bytes at an aligned address mean something else.
    assert!(decode_all(&b, OPTS).is_err());
}

#[test]
fn response_sizes_are_checked() {
    let mut e = prefix();
    // RESPONSEQUERY, 1 entry of 4 bytes, but dwTotalSize says 24 instead of 20.
    e.raw(&[88, 0, 1, 0])
        .raw(&24u32.to_le_bytes())
        .raw(&[1, 0, 0, 0, 4, 0, 0, 0])
        .raw(&[9; 8]);
    let err = decode_all(e.bytes(), OPTS).unwrap_err();
    assert_eq!(err.offset, 20);
    assert_eq!(
        err.kind,
        K::BadResponseSize {
            total_size: 24,
            needed: 20
        }
    );
    // dwTotalSize under 8.
    let mut e = prefix();
    e.raw(&[87, 0, 0, 0]).raw(&4u32.to_le_bytes());
    assert_eq!(
        decode_all(e.bytes(), OPTS).unwrap_err().kind,
        K::BadResponseSize {
            total_size: 4,
            needed: 8
        }
    );
}

#[test]
fn huge_declared_lengths_fail_without_allocating() {
    // CREATEPIXELSHADER with dwCodeSize = 4 GiB - 1.
    let mut e = prefix();
    e.raw(&[54, 0, 1, 0, 1, 0, 0, 0])
        .raw(&u32::MAX.to_le_bytes());
    let err = decode_all(e.bytes(), OPTS).unwrap_err();
    assert_eq!(err.offset, 20);
    assert_eq!(
        err.kind,
        K::TruncatedPayload {
            needed: 8 + u64::from(u32::MAX),
            available: 8
        }
    );
    // SETVERTEXSHADERCONST with dwCount = 0xFFFFFFFF vectors.
    let mut e = prefix();
    e.raw(&[48, 0, 1, 0, 0, 0, 0, 0])
        .raw(&u32::MAX.to_le_bytes());
    let err = decode_all(e.bytes(), OPTS).unwrap_err();
    assert_eq!(
        err.kind,
        K::TruncatedPayload {
            needed: 8 + 16 * u64::from(u32::MAX),
            available: 8
        }
    );
}
