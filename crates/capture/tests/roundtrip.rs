//! Text ⇄ binary round trips: every record type, every answer shape, odd
//! streams and vertex data, and every hand-written example.

use softhal_capture::record::*;
use softhal_capture::{binary, text};
use std::path::Path;

mod common;
use common::every_record;

#[test]
fn every_record_type_round_trips_text_and_binary() {
    let c = every_record();
    let bin = binary::encode(&c);
    assert_eq!(binary::decode(&bin).unwrap(), c);
    let t = text::to_text(&c);
    let back = text::from_text(&t, None).unwrap_or_else(|e| panic!("{e}\n{t}"));
    assert_eq!(back, c, "text:\n{t}");
    // And the canonical text is stable.
    assert_eq!(text::to_text(&back), t);
    assert_eq!(binary::encode(&back), bin);
}

#[test]
fn each_record_alone_round_trips() {
    for r in every_record().records {
        let c = Capture { records: vec![r] };
        let t = text::to_text(&c);
        assert_eq!(text::from_text(&t, None).unwrap(), c, "{t}");
        assert_eq!(binary::decode(&binary::encode(&c)).unwrap(), c);
    }
}

#[test]
fn hand_written_examples_are_byte_exact_after_canonicalisation() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/captures");
    let mut n = 0;
    for e in std::fs::read_dir(&dir).unwrap() {
        let p = e.unwrap().path();
        if !p.to_string_lossy().ends_with(".shcap.txt") {
            continue;
        }
        n += 1;
        let src = std::fs::read_to_string(&p).unwrap();
        assert!(text::is_text_capture(&src));
        let c =
            text::from_text(&src, Some(&dir)).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        let bin = binary::encode(&c);
        let canon = text::to_text(&binary::decode(&bin).unwrap());
        let c2 = text::from_text(&canon, None).unwrap();
        assert_eq!(binary::encode(&c2), bin, "{}", p.display());
        assert_eq!(text::to_text(&c2), canon);
    }
    assert!(n >= 3);
}

#[test]
fn text_conveniences_and_errors() {
    let src = ".capture 1\nsurface 1 index_buffer u16=[0 1 65535] u32=[7]\nsurface 2 vertex_buffer fvf=D3DFVF_XYZ|D3DFVF_TEX1|D3DFVF_TEXCOORDSIZE3(0)\n  vertex x=1 y=2 z=3 tex0=[0.5 0.25 1]\n.end\n";
    let c = text::from_text(src, None).unwrap();
    match &c.records[0] {
        Record::CreateSurface { init, spec, .. } => {
            assert_eq!(init, &[0, 0, 1, 0, 255, 255, 7, 0, 0, 0]);
            assert_eq!(spec.width, 10);
        }
        r => panic!("{r:?}"),
    }
    match &c.records[1] {
        Record::CreateSurface { init, spec, .. } => {
            assert_eq!((init.len(), spec.width), (24, 24));
            assert_eq!(&init[12..16], &0.5f32.to_le_bytes());
        }
        r => panic!("{r:?}"),
    }
    let bad = [
        ("surface 1 render_target width=4", 1, ""),
        (".capture 2", 1, "version"),
        (".capture 1\nfrobnicate 3", 2, "unknown record"),
        (".capture 1\nexpect ddrval=D3D_OK", 2, "no call"),
        (
            ".capture 1\ncomplete_work\nexpect ddrval=D3D_OK",
            3,
            "has no answer",
        ),
        (
            ".capture 1\ndp2 context=1 commands=2\n  BOGUS\n.end",
            3,
            "unknown mnemonic",
        ),
        (
            ".capture 1\ndp2 context=1 commands=2\n  CLEAR",
            2,
            "missing .end",
        ),
        (
            ".capture 1\ndp2 context=1 commands=2 fvf=0x44\n.vertices\n  vertex q=1\n.end",
            4,
            "no field q",
        ),
        (
            ".capture 1\nsurface 1 texture format=D3DFMT_A8R8G8B8 width=4 data=hex:0",
            2,
            "odd",
        ),
        (
            ".capture 1\nclear2 context=1 rects=[1 2 3]",
            2,
            "x1 y1 x2 y2",
        ),
        (
            ".capture 1\nsurface 1 render_target format=D3DFMT_X8R8G8B8 width=1 bogus=1",
            2,
            "unknown key",
        ),
    ];
    for (src, line, msg) in bad {
        // Every line of a complete text capture ends with a newline (a last
        // line without one was cut: `text::from_text_prefix`).
        let e = text::from_text(&format!("{src}\n"), None).unwrap_err();
        assert_eq!(e.line, line, "{src}: {e}");
        assert!(e.message.contains(msg), "{src}: {e}");
    }
}

#[test]
fn png_texels_are_converted_to_the_surface_format() {
    let dir = std::env::temp_dir().join(format!("softhal-capture-png-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    {
        let f = std::fs::File::create(dir.join("t.png")).unwrap();
        let mut enc = png::Encoder::new(std::io::BufWriter::new(f), 2, 1);
        enc.set_color(png::ColorType::Rgba);
        enc.set_depth(png::BitDepth::Eight);
        let mut w = enc.write_header().unwrap();
        w.write_image_data(&[255, 0, 0, 255, 0, 0, 255, 128])
            .unwrap();
    }
    let c = text::from_text(
        ".capture 1\nsurface 1 texture format=D3DFMT_A8R8G8B8 png=t.png\nsurface 2 texture format=D3DFMT_R5G6B5 png=t.png\n",
        Some(&dir),
    )
    .unwrap();
    match (&c.records[0], &c.records[1]) {
        (Record::CreateSurface { spec, init, .. }, Record::CreateSurface { init: init565, .. }) => {
            assert_eq!((spec.width, spec.height), (2, 1));
            assert_eq!(init, &[0, 0, 255, 255, 255, 0, 0, 128]);
            assert_eq!(init565, &[0x00, 0xF8, 0x1F, 0x00]);
        }
        r => panic!("{r:?}"),
    }
    // And it replays: the texture level holds the texels.
    let rep = softhal_capture::replay(&c, 1, |_, _| {}).unwrap();
    assert!(rep.answers.iter().all(|a| a.as_ref().unwrap().ddrval == 0));
    let e = text::from_text(
        ".capture 1\nsurface 1 texture format=D3DFMT_A8R8G8B8 png=missing.png\n",
        Some(&dir),
    )
    .unwrap_err();
    assert!(e.message.contains("missing.png"), "{e}");
}

#[test]
fn submissions_show_their_decoded_packets_as_comments_before_the_hex() {
    let c = every_record();
    let t = text::to_text(&c);
    let submits: Vec<&Record> = c
        .records
        .iter()
        .filter(|r| matches!(r, Record::Submit { .. }))
        .collect();
    assert!(!submits.is_empty(), "every_record has a submission");
    // Each submit block: its comment lines come before its first
    // `commands` line, and the comments are not part of the record.
    for block in t.split("\nsubmit ").skip(1) {
        let block = block.split("\n.end").next().unwrap_or("");
        let first_hex = block.find("  commands ").unwrap_or(block.len());
        let comments: Vec<&str> = block
            .lines()
            .filter(|l| l.trim_start().starts_with('#'))
            .collect();
        if block.contains("  commands ") {
            assert!(!comments.is_empty(), "no decoded packets in\n{block}");
        }
        for l in &comments {
            assert!(block.find(l).unwrap_or(0) < first_hex, "{l} after the hex");
        }
    }
}

#[test]
fn a_submission_of_real_packets_reads_as_packets_and_still_round_trips() {
    let mut w = softhal_submit::Writer::new();
    w.clear_targets(3, 0xff20_3040, 1.0, 0, &[[0, 0, 8, 8]]);
    w.draw(4, 0, 1, 0, false);
    let c = Capture {
        records: vec![Record::Submit {
            call: Box::new(SubmitCall {
                command_length: w.bytes.len() as u32,
                command_bytes: w.bytes.clone(),
                ..SubmitCall::default()
            }),
            answer: None,
        }],
    };
    let t = text::to_text(&c);
    assert!(
        t.contains(
            "  # 0: CLEAR flags=TARGET|ZBUFFER color=0xff203040 z=1 stencil=0 rects=1\n  # 40: DRAW topology=TRIANGLELIST first=0 count=1\n  commands hex:"
        ),
        "{t}"
    );
    let back = text::from_text(&t, None).unwrap_or_else(|e| panic!("{e}\n{t}"));
    assert_eq!(back, c);
    assert_eq!(text::to_text(&back), t);
}
