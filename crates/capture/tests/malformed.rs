//! Loading hostile captures: truncations at every record boundary and at
//! every byte, random corruption, wrong versions, absurd sizes, unknown and
//! reserved record types. Every case is a precise error, never a panic and
//! never an allocation larger than the input.

use softhal_capture::binary::{self, kind, FLAG_SKIPPABLE};
use softhal_capture::{text, LoadErrorKind};

mod common;

fn sample() -> Vec<u8> {
    binary::encode(&common::every_record())
}

/// Byte offsets where records start (the header end, each record, END).
fn boundaries(b: &[u8]) -> Vec<usize> {
    let mut v = vec![binary::HEADER_BYTES];
    let mut at = binary::HEADER_BYTES;
    while at + 8 <= b.len() {
        let len = u32::from_le_bytes(b[at + 4..at + 8].try_into().unwrap()) as usize;
        at += 8 + len;
        v.push(at);
    }
    v
}

#[test]
fn truncation_at_every_record_boundary_is_an_error() {
    let b = sample();
    let bounds = boundaries(&b);
    assert_eq!(*bounds.last().unwrap(), b.len());
    for (i, &cut) in bounds.iter().enumerate().take(bounds.len() - 1) {
        let e = binary::decode(&b[..cut]).unwrap_err();
        assert_eq!(e.kind, LoadErrorKind::MissingEnd, "cut at {cut}");
        assert_eq!((e.record, e.offset), (i, cut as u64));
        assert!(e
            .to_string()
            .contains(&format!("record {i} at byte offset {cut}")));
    }
}

#[test]
fn truncation_at_every_byte_is_an_error() {
    let b = sample();
    for cut in 0..b.len() {
        let e = binary::decode(&b[..cut]).unwrap_err();
        assert!(e.offset <= cut as u64, "cut {cut}: {e}");
    }
    assert!(binary::decode(&b).is_ok());
}

#[test]
fn random_corruption_never_panics() {
    let b = sample();
    let mut s: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    };
    for _ in 0..3000 {
        let mut c = b.clone();
        for _ in 0..1 + next() % 4 {
            let i = (next() % c.len() as u64) as usize;
            c[i] = next() as u8;
        }
        let _ = binary::decode(&c);
    }
    // Pure noise after a valid header.
    for n in 0..200 {
        let mut c = binary::header();
        c.extend((0..n * 7).map(|_| next() as u8));
        assert!(binary::decode(&c).is_err());
    }
}

#[test]
fn header_errors() {
    let b = sample();
    assert_eq!(
        binary::decode(b"").unwrap_err().kind,
        LoadErrorKind::BadMagic
    );
    assert_eq!(
        binary::decode(b"GIF89a..........").unwrap_err().kind,
        LoadErrorKind::BadMagic
    );
    let mut v2 = b.clone();
    v2[8] = 2;
    let e = binary::decode(&v2).unwrap_err();
    assert_eq!(
        e.kind,
        LoadErrorKind::UnsupportedVersion {
            found: 2,
            supported: 1
        }
    );
    assert_eq!((e.record, e.offset), (0, 8));
    assert!(e.to_string().contains("version 2 is not supported"));
    let mut flags = b.clone();
    flags[12] = 1;
    assert_eq!(
        binary::decode(&flags).unwrap_err().kind,
        LoadErrorKind::BadHeaderFlags(1)
    );
}

fn with_records(records: &[Vec<u8>], count: u32) -> Vec<u8> {
    let mut b = binary::header();
    for r in records {
        b.extend_from_slice(r);
    }
    b.extend_from_slice(&binary::end_record(count));
    b
}

#[test]
fn absurd_sizes_are_refused_before_allocating() {
    // A record claiming 4 GiB of payload.
    let mut r = kind::UNLOCK.to_le_bytes().to_vec();
    r.extend_from_slice(&0u16.to_le_bytes());
    r.extend_from_slice(&u32::MAX.to_le_bytes());
    let e = binary::decode(&with_records(&[r], 1)).unwrap_err();
    assert!(
        matches!(
            e.kind,
            LoadErrorKind::TooLarge {
                what: "record length",
                ..
            }
        ),
        "{e}"
    );
    assert_eq!(e.offset, 16 + 4);
    // A blob length larger than its payload.
    let mut p = Vec::new();
    for v in [1u32, 0, 0, 0, 0xffff_fff0] {
        p.extend_from_slice(&v.to_le_bytes());
    }
    let e = binary::decode(&with_records(&[binary::frame(kind::UNLOCK, &p)], 1)).unwrap_err();
    assert!(
        matches!(
            e.kind,
            LoadErrorKind::Truncated {
                what: "bytes written",
                ..
            }
        ),
        "{e}"
    );
    assert_eq!(e.offset, 16 + 8 + 20);
    // Clear2 with four billion rectangles.
    let mut p = Vec::new();
    for v in [1u32, 1, 0, 0, 0, u32::MAX] {
        p.extend_from_slice(&v.to_le_bytes());
    }
    let e = binary::decode(&with_records(&[binary::frame(kind::CLEAR2, &p)], 1)).unwrap_err();
    assert!(
        matches!(
            e.kind,
            LoadErrorKind::TooLarge {
                what: "dwNumRects",
                ..
            }
        ),
        "{e}"
    );
    // Absurd surface sizes load (they are the driver's business) and replay
    // as the driver's refusal, without allocating.
    let c = text::from_text(
        ".capture 1\nsurface 1 render_target format=D3DFMT_A8R8G8B8 width=4000000000 height=4000000000\nsurface 2 vertex_buffer size=4294967295\nsurface 3 volume_texture format=D3DFMT_A8R8G8B8 width=8192 height=8192 depth=2048\n",
        None,
    )
    .unwrap();
    let r = softhal_capture::replay(&c, 1, |_, _| {}).unwrap();
    for a in &r.answers {
        assert_ne!(a.as_ref().unwrap().ddrval, 0);
    }
}

#[test]
fn record_level_errors_name_record_and_offset() {
    let ok = binary::frame(kind::COMPLETE_WORK, &[]);
    // Unknown type, not skippable.
    let unknown = binary::frame(200, &[1, 2, 3]);
    let e = binary::decode(&with_records(&[ok.clone(), unknown.clone()], 2)).unwrap_err();
    assert_eq!((e.record, e.offset), (1, 24));
    assert_eq!(e.kind, LoadErrorKind::UnknownRecord(200));
    // The same, marked skippable: skipped.
    let mut skippable = unknown.clone();
    skippable[2..4].copy_from_slice(&FLAG_SKIPPABLE.to_le_bytes());
    let c = binary::decode(&with_records(&[ok.clone(), skippable, ok.clone()], 3)).unwrap();
    assert_eq!(c.records.len(), 2);
    // Unknown record flags.
    let mut flagged = ok.clone();
    flagged[2] = 0x80;
    assert_eq!(
        binary::decode(&with_records(&[flagged], 1))
            .unwrap_err()
            .kind,
        LoadErrorKind::BadRecordFlags(0x80)
    );
    // A render-callback submission whose allocation count promises more
    // entries than the payload holds: refused before allocating.
    let mut submit = vec![0u8; 9 * 4];
    submit.extend_from_slice(&0u32.to_le_bytes()); // no command bytes
    submit.extend_from_slice(&0xffff_ffffu32.to_le_bytes()); // allocations
    let e = binary::decode(&with_records(&[binary::frame(kind::SUBMIT, &submit)], 1)).unwrap_err();
    assert!(
        matches!(
            e.kind,
            LoadErrorKind::Truncated {
                what: "allocation list",
                ..
            }
        ),
        "{e}"
    );
    assert_eq!(e.record, 0);
    // An empty submission payload is truncated, not reserved any more.
    let e = binary::decode(&with_records(&[binary::frame(kind::SUBMIT, &[])], 1)).unwrap_err();
    assert!(
        matches!(
            e.kind,
            LoadErrorKind::Truncated {
                what: "hContext",
                ..
            }
        ),
        "{e}"
    );
    // Extra payload bytes.
    let e = binary::decode(&with_records(
        &[binary::frame(kind::COMPLETE_WORK, &[0])],
        1,
    ))
    .unwrap_err();
    assert_eq!(e.kind, LoadErrorKind::PayloadTooLong(1));
    // Bad answer-present flag.
    let mut p = 5u32.to_le_bytes().to_vec();
    p.extend_from_slice(&7u32.to_le_bytes());
    let e = binary::decode(&with_records(&[binary::frame(kind::PRESENT, &p)], 1)).unwrap_err();
    assert!(matches!(
        e.kind,
        LoadErrorKind::BadValue {
            what: "answer present",
            value: 7
        }
    ));
    // END count mismatch and trailing bytes.
    assert!(matches!(
        binary::decode(&with_records(std::slice::from_ref(&ok), 5))
            .unwrap_err()
            .kind,
        LoadErrorKind::CountMismatch {
            claimed: 5,
            actual: 1
        }
    ));
    let mut trailing = with_records(&[ok], 1);
    trailing.push(0);
    assert_eq!(
        binary::decode(&trailing).unwrap_err().kind,
        LoadErrorKind::TrailingBytes(1)
    );
}

#[test]
fn text_truncated_or_mangled_never_panics() {
    let t = text::to_text(&common::every_record());
    for cut in (0..t.len()).step_by(7) {
        if t.is_char_boundary(cut) {
            let _ = text::from_text(&t[..cut], None);
        }
    }
    let mut s: u32 = 12345;
    let bytes = t.as_bytes();
    for _ in 0..500 {
        let mut m = bytes.to_vec();
        s = s.wrapping_mul(1_103_515_245).wrapping_add(12345);
        let i = (s as usize >> 3) % m.len();
        m[i] = b"{}[]=.:x0 \n#"[(s >> 20) as usize % 12];
        if let Ok(src) = std::str::from_utf8(&m) {
            let _ = text::from_text(src, None);
        }
    }
}

#[test]
fn replaying_corrupted_but_loadable_captures_never_panics() {
    let b = sample();
    let mut s: u64 = 7;
    let mut replayed = 0;
    for _ in 0..400 {
        s = s.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
        let mut c = b.clone();
        let i = binary::HEADER_BYTES + (s >> 33) as usize % (c.len() - binary::HEADER_BYTES);
        c[i] ^= (s >> 8) as u8 | 1;
        if let Ok(cap) = binary::decode(&c) {
            let _ = softhal_capture::replay(&cap, 1, |_, _| {});
            replayed += 1;
        }
    }
    assert!(replayed > 50);
    let r = softhal_capture::replay(&common::every_record(), 1, |_, _| {}).unwrap();
    assert_eq!(r.answers.len(), common::every_record().records.len());
}

#[test]
fn replaying_mutations_of_a_rendering_capture_never_panics() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/captures");
    let mut s: u64 = 99;
    for name in ["gouraud-strip.shcap.txt", "indexed-stream-mesh.shcap.txt"] {
        let src = std::fs::read_to_string(dir.join(name)).unwrap();
        let b = binary::encode(&text::from_text(&src, None).unwrap());
        for _ in 0..150 {
            s = s
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1442695040888963407);
            let mut c = b.clone();
            for _ in 0..1 + (s >> 60) {
                s = s.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                let i =
                    binary::HEADER_BYTES + (s >> 33) as usize % (c.len() - binary::HEADER_BYTES);
                c[i] = (s >> 8) as u8;
            }
            if let Ok(cap) = binary::decode(&c) {
                let _ = softhal_capture::replay(&cap, 1, |_, _| {});
            }
        }
    }
}

/// Found in the threat-model review: `png=` could name any readable host
/// file (absolute paths, `..`), turning a capture into a file-read gadget.
#[test]
fn regression_png_paths_are_confined_to_the_capture_directory() {
    for bad in ["/etc/hostname", "../secret.png", "textures/../../x.png"] {
        let src = format!(
            ".capture 1\nsurface 0x1 texture format=D3DFMT_A8R8G8B8 width=1 height=1 png={bad}\n"
        );
        let e =
            softhal_capture::load(src.as_bytes(), Some(std::path::Path::new("/tmp"))).unwrap_err();
        assert!(e.to_string().contains("relative path inside"), "{bad}: {e}");
    }
}
