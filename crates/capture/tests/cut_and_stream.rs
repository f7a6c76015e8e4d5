//! Replays that stream and replays of cut captures.
//!
//! * A replay hands each presented frame to its sink at the Present, before
//!   the next record runs, and keeps none: presenting one target many
//!   times needs the memory of one frame, not of all of them.
//! * A capture cut anywhere in its last record (binary: at every byte;
//!   text: at every byte that is not a line end) still replays every
//!   complete record before the cut, and the cut is reported with its
//!   record and byte offset (binary) or line (text).
//! * A call the driver refuses is reported with the driver's reason.

use softhal_capture::{
    binary, load, load_prefix, replay, replay_into, text, AnyLoadError, Frame, FrameKind, Sink,
    Step,
};
use softhal_wire::names::codes;

fn repo(path: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(path)
}

fn strip() -> softhal_capture::Capture {
    let p = repo("testdata/captures/gouraud-strip.shcap.txt");
    let src = std::fs::read_to_string(&p).unwrap();
    text::from_text(&src, p.parent()).unwrap()
}

/// One render target presented `n` times after a Clear2 to 0xFF336699.
fn presents(n: usize, size: u32) -> String {
    let mut src = format!(
        ".capture 1\nsurface 0x1 render_target format=D3DFMT_X8R8G8B8 width={size} height={size}\n\
         context 0x10 target=0x1\n\
         clear2 context=0x10 flags=D3DCLEAR_TARGET color=0xFF336699 rects=[0 0 {size} {size}]\n"
    );
    for _ in 0..n {
        src.push_str("present 0x1\n");
    }
    src
}

#[derive(Default)]
struct Events {
    steps: usize,
    /// (record of the frame, records replayed when it arrived)
    frames: Vec<(usize, usize)>,
    first_pixel: Vec<[u8; 4]>,
}

impl Sink for Events {
    fn frame(&mut self, f: Frame) {
        if f.kind == FrameKind::Presented {
            self.frames.push((f.record, self.steps));
            self.first_pixel.push(f.rgba[..4].try_into().unwrap());
        }
        // `f` is dropped here: its pixels are freed before the next record.
    }
    fn step(&mut self, s: Step) {
        self.steps = s.index + 1;
    }
}

#[test]
fn every_presented_frame_reaches_the_sink_at_its_present() {
    // A 512 × 512 target (1 MiB a frame) presented 40 times: records 0–2
    // create the surface and the context and clear; records 3..43 present.
    let c = text::from_text(&presents(40, 512), None).unwrap();
    let mut ev = Events::default();
    replay_into(&c, 1, None, &mut ev).unwrap();
    assert_eq!(ev.steps, 43);
    assert_eq!(ev.frames.len(), 40);
    for (i, (record, replayed)) in ev.frames.iter().enumerate() {
        assert_eq!(*record, 3 + i);
        // Handed over while record 3 + i runs: only the records before it
        // have been replayed, so no frame waits for the end.
        assert_eq!(*replayed, 3 + i, "frame {i} was held back");
    }
    // X8R8G8B8 0xFF336699 read back as RGBA8: R 0x33, G 0x66, B 0x99, A 0xFF.
    assert!(ev
        .first_pixel
        .iter()
        .all(|p| *p == [0x33, 0x66, 0x99, 0xFF]));
}

/// Byte offsets where the records of a binary capture start (the last one
/// is the END record's).
fn starts(b: &[u8]) -> Vec<usize> {
    let mut v = Vec::new();
    let mut at = binary::HEADER_BYTES;
    while at + 8 <= b.len() {
        v.push(at);
        let len = u32::from_le_bytes(b[at + 4..at + 8].try_into().unwrap()) as usize;
        at += 8 + len;
    }
    v
}

#[test]
fn a_binary_capture_cut_at_every_byte_of_its_last_record_replays_what_precedes() {
    let whole = strip();
    let n = whole.records.len();
    let full = replay(&whole, 1, |_, _| {}).unwrap();
    let b = binary::encode(&whole);
    let s = starts(&b);
    let (last, end) = (s[s.len() - 2], s[s.len() - 1]);
    for cut in last..b.len() {
        let loaded = load_prefix(&b[..cut], None).unwrap();
        let e = loaded.cut.expect("the cut is reported");
        assert!(e.is_cut(), "cut {cut}: {e}");
        assert!(
            load(&b[..cut], None).is_err(),
            "cut {cut}: load must refuse"
        );
        // Inside the last record: the n - 1 before it; inside END: all n.
        let kept = if cut < end { n - 1 } else { n };
        assert_eq!(loaded.capture.records, whole.records[..kept], "cut {cut}");
        let AnyLoadError::Binary(be) = &e else {
            panic!("binary cut reported as {e:?}")
        };
        assert_eq!(be.record, kept, "cut {cut}: {e}");
        assert!(
            (s[kept] as u64..=cut as u64).contains(&be.offset),
            "cut {cut}: {e}"
        );
        let part = replay(&loaded.capture, 1, |_, _| {}).unwrap();
        assert_eq!(part.answers[..], full.answers[..kept], "cut {cut}");
        let presented = full.frames.iter().filter(|f| f.record < kept).count();
        assert_eq!(part.frames[..], full.frames[..presented], "cut {cut}");
    }
}

#[test]
fn a_text_capture_cut_inside_its_last_record_replays_what_precedes() {
    let whole = strip();
    let n = whole.records.len();
    let t = text::to_text(&whole);
    let last_line = t.trim_end().lines().count();
    let last = t.trim_end().rfind('\n').unwrap() + 1;
    assert!(t[last..].starts_with("present"), "{}", &t[last..]);
    for cut in last + 1..t.len() {
        let loaded = load_prefix(&t.as_bytes()[..cut], None).unwrap();
        let e = loaded.cut.expect("the cut is reported");
        assert!(e.to_string().contains(&format!("line {last_line}")), "{e}");
        assert!(e.is_cut());
        assert_eq!(loaded.capture.records, whole.records[..n - 1], "cut {cut}");
    }
    // A cut in a DP2 block (the last call's `.vertices` rows): the block
    // has no `.end`, so the call is not replayed.
    let dp2_end = t.rfind(".end\n").unwrap();
    let loaded = load_prefix(&t.as_bytes()[..dp2_end], None).unwrap();
    let e = loaded.cut.expect("the cut is reported");
    assert!(e.to_string().contains("missing .end"), "{e}");
    let kept = loaded.capture.records.len();
    assert!(kept < n - 1);
    assert_eq!(loaded.capture.records, whole.records[..kept]);
}

#[test]
fn a_refused_call_is_reported_with_the_drivers_reason() {
    // testdata/refused/out-of-range.shcap.txt: record 3 draws a
    // TRIANGLELIST from vertex 5 (vertices 5, 6, 7) with three vertices
    // (0–2): the DDI refuses the command with D3DERR_COMMAND_UNPARSED and
    // dwErrorOffset 0 (the command's offset), and the device says which
    // index is out of range. Record 4 creates a render target 0 pixels
    // wide: CreateSurface refuses it (E_INVALIDARG here) and says why.
    let p = repo("testdata/refused/out-of-range.shcap.txt");
    let c = text::from_text(&std::fs::read_to_string(&p).unwrap(), None).unwrap();
    let r = replay(&c, 1, |_, _| {}).unwrap();
    assert_eq!(r.refusals.len(), 2, "{:?}", r.refusals);
    let (dp2, surface) = (&r.refusals[0], &r.refusals[1]);
    assert_eq!((dp2.record, dp2.call), (3, "dp2"));
    assert_eq!(dp2.ddrval, codes::D3DERR_COMMAND_UNPARSED);
    assert_eq!(dp2.error_offset, 0);
    assert!(!dp2.recorded, "the capture recorded no answer");
    let why = dp2.reason.as_deref().unwrap_or_default();
    assert!(
        why.contains("vertex index = 7 is out of range (limit 3)"),
        "{why}"
    );
    assert_eq!((surface.record, surface.call), (4, "surface"));
    assert_eq!(surface.ddrval, codes::E_INVALIDARG);
    assert!(
        surface.reason.as_deref().is_some_and(|r| r.contains("0x4")),
        "{:?}",
        surface.reason
    );
}

/// Every capture of `testdata/captures/`, in binary form cut at every byte
/// past the magic and in canonical text cut at every byte inside a line
/// with content: the cut is reported and what is kept is the capture's
/// own records (in text, the last one kept may lack its `expect`). This
/// is the cut oracle of the `capture_load` fuzz target, on every input.
#[test]
fn every_cut_of_every_example_keeps_the_records_before_it() {
    let dir = repo("testdata/captures");
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let whole = load(&std::fs::read(&path).unwrap(), Some(&dir)).unwrap();
        let b = binary::encode(&whole);
        for cut in binary::MAGIC.len()..b.len() {
            let loaded = load_prefix(&b[..cut], None).unwrap();
            assert!(loaded.cut.is_some_and(|e| e.is_cut()), "{path:?} cut {cut}");
            let kept = &loaded.capture.records;
            assert_eq!(kept[..], whole.records[..kept.len()], "{path:?} cut {cut}");
        }
        let t = text::to_text(&whole);
        let mut line_start = 0;
        for line in t.split_inclusive('\n') {
            let content = line.trim();
            let start = line_start;
            line_start += line.len();
            if start == 0 || content.is_empty() || content.starts_with(['#', ';']) {
                continue;
            }
            let lead = line.len() - line.trim_start().len();
            for cut in start + lead + 1..=start + line.trim_end().len() {
                if !t.is_char_boundary(cut) {
                    continue;
                }
                let loaded = load_prefix(&t.as_bytes()[..cut], None)
                    .unwrap_or_else(|e| panic!("{path:?} text cut {cut}: {e}"));
                assert!(
                    loaded.cut.is_some_and(|e| e.is_cut()),
                    "{path:?} text cut {cut}"
                );
                let kept = &loaded.capture.records;
                let exact = kept.len().saturating_sub(1);
                assert!(kept.len() <= whole.records.len());
                assert_eq!(
                    kept[..exact],
                    whole.records[..exact],
                    "{path:?} text cut {cut}"
                );
            }
        }
    }
}
