//! Loading arbitrary bytes as a capture (binary `SHALCAP` or `.capture`
//! text, chosen by the content as `softhal render` does) and replaying what
//! loads. Oracles:
//! * never panics (P1), loading included;
//! * loading allocates at most `LOAD_HEAP_FACTOR` × the input size +
//!   `LOAD_HEAP_SLACK` (the `capture::limits` promise "a small constant
//!   factor of its own size", P6);
//! * what loads round-trips: `binary::decode(binary::encode(c)) == c` and
//!   `text::from_text(text::to_text(c)) == c` (the crate's documented
//!   guarantee);
//! * a cut capture replays what precedes the cut: the binary and the text
//!   form of what loads, cut at a byte chosen from the input, load with
//!   `load_prefix`, report the cut, and keep the capture's own records
//!   before it (the text form's last kept record may lack its `expect`);
//! * a loaded capture whose surfaces are small (`REPLAY_SURFACE_BUDGET`)
//!   and whose records are few (`REPLAY_MAX_RECORDS`) replays on a fresh
//!   driver without panicking, twice with the same frames (bounded time
//!   and size: larger captures are loaded and round-tripped only);
//! * a replay streams: through `replay_into` with a sink that drops each
//!   frame, its heap peak is bounded by the surfaces the capture creates
//!   (`surface_bytes`, twice: the surfaces and the frame being handed
//!   over) plus `REPLAY_HEAP_SLACK`, however many frames it presents.
#![no_main]
use libfuzzer_sys::fuzz_target;
use softhal_capture::{binary, replay_with_timeout, text, Capture, Record};

#[path = "common/mod.rs"]
mod common;

#[global_allocator]
static ALLOC: common::Counting = common::Counting;

/// Heap bytes loading may use per input byte (a one-byte text line is a
/// `Line` entry; a short record is a `Record` of ~100 bytes).
const LOAD_HEAP_FACTOR: usize = 64;
/// Heap bytes loading may use whatever the input.
const LOAD_HEAP_SLACK: usize = 1 << 20;
/// Largest total surface storage (pessimistic estimate) replayed.
const REPLAY_SURFACE_BUDGET: u64 = 16 << 20;
/// Most records replayed.
const REPLAY_MAX_RECORDS: usize = 2048;
/// Heap bytes a streaming replay may use besides the surfaces and one
/// frame (the driver, its command buffers, the handle maps).
const REPLAY_HEAP_SLACK: usize = 32 << 20;

/// A sink that keeps nothing: each frame is dropped when handed over.
struct Discard;

impl softhal_capture::Sink for Discard {
    fn frame(&mut self, _: softhal_capture::Frame) {}
    fn step(&mut self, _: softhal_capture::Step) {}
}

/// The cut oracle: `whole` cut at `cut` bytes loads as a prefix of `c`.
fn check_cut(c: &Capture, whole: &[u8], cut: usize, form: &str) {
    let Some(part) = whole.get(..cut) else { return };
    let loaded = softhal_capture::load_prefix(part, None)
        .unwrap_or_else(|e| panic!("{form} cut at {cut} of {}: {e}", whole.len()));
    let cut_reported = loaded.cut.as_ref().is_some_and(|e| e.is_cut());
    assert!(cut_reported, "{form} cut at {cut} of {}: not reported", whole.len());
    let kept = &loaded.capture.records;
    assert!(kept.len() <= c.records.len(), "{form} cut at {cut}: more records");
    let exact = kept.len().saturating_sub(usize::from(form == "text"));
    assert_eq!(
        kept[..exact],
        c.records[..exact],
        "{form} cut at {cut}: the records kept are not the capture's"
    );
}

/// A pessimistic estimate of the surface bytes a replay creates.
fn surface_bytes(c: &Capture) -> u64 {
    c.records
        .iter()
        .map(|r| match r {
            Record::CreateSurface { spec, .. } => {
                let d = u64::from(spec.depth.max(1));
                // 16 bytes per texel, 6 faces, 2x for mips.
                u64::from(spec.width)
                    .saturating_mul(u64::from(spec.height.max(1)))
                    .saturating_mul(d)
                    .saturating_mul(16 * 6 * 2)
            }
            _ => 0,
        })
        .fold(0u64, u64::saturating_add)
}

fuzz_target!(|data: &[u8]| {
    let (loaded, usage) = common::measure(|| softhal_capture::load(data, None));
    let bound = data.len() * LOAD_HEAP_FACTOR + LOAD_HEAP_SLACK;
    common::note_peak("capture_load", usage.peak, bound);
    assert!(
        usage.peak <= bound,
        "loading {} bytes peaked at {} heap bytes",
        data.len(),
        usage.peak
    );
    let Ok(c) = loaded else { return };

    let bin = binary::encode(&c);
    assert_eq!(
        binary::decode(&bin).expect("an encoded capture decodes"),
        c,
        "binary round trip"
    );
    let txt = text::to_text(&c);
    match text::from_text(&txt, None) {
        Ok(again) => assert_eq!(again, c, "text round trip"),
        Err(e) => panic!("canonical text does not load: {e}\n{txt}"),
    }

    // The binary form cut past its magic (a shorter prefix is no capture);
    // the text form cut inside a line that has content (a cut at a line
    // end reads as a shorter capture: the text form has no end marker).
    let pick = data.iter().fold(0usize, |h, b| h.wrapping_mul(31).wrapping_add(usize::from(*b)));
    let magic = binary::MAGIC.len();
    check_cut(&c, &bin, magic + pick % (bin.len() - magic), "binary");
    let lines: Vec<(usize, &str)> = txt
        .split_inclusive('\n')
        .scan(0, |at, l| {
            let start = *at;
            *at += l.len();
            Some((start, l))
        })
        .skip(1) // `.capture 1`
        .filter(|(_, l)| {
            let t = l.trim();
            !t.is_empty() && !t.starts_with(['#', ';'])
        })
        .collect();
    if let Some(&(start, line)) = lines.get(pick % lines.len().max(1)) {
        // After the line's first character, up to its end without the
        // newline (a line with all of its characters but no newline was
        // cut too).
        let lead = line.len() - line.trim_start().len();
        let body = line.trim_end().len();
        let mut cut = start + lead + 1 + (pick / 7) % (body - lead);
        while !txt.is_char_boundary(cut) {
            cut += 1;
        }
        check_cut(&c, txt.as_bytes(), cut, "text");
    }

    if c.records.len() <= REPLAY_MAX_RECORDS && surface_bytes(&c) <= REPLAY_SURFACE_BUDGET {
        let (streamed, usage) =
            common::measure(|| softhal_capture::replay_into(&c, 1, None, &mut Discard));
        streamed.expect("a 1-thread driver can be created");
        let bound = usize::try_from(surface_bytes(&c).saturating_mul(2))
            .unwrap_or(usize::MAX)
            .saturating_add(REPLAY_HEAP_SLACK);
        common::note_peak("capture_load replay", usage.peak, bound);
        assert!(
            usage.peak <= bound,
            "a streaming replay peaked at {} heap bytes (bound {bound})",
            usage.peak
        );
        // No GPU timeout (libFuzzer's -timeout bounds the run): a
        // wall-clock stop would make the two replays differ.
        let a = replay_with_timeout(&c, 1, None, |_, _| {})
            .expect("a 1-thread driver can be created");
        let b = replay_with_timeout(&c, 1, None, |_, _| {})
            .expect("a 1-thread driver can be created");
        assert_eq!(
            a.answers, b.answers,
            "replays of one capture must answer alike"
        );
        let sums = |r: &softhal_capture::Replay| {
            r.frames
                .iter()
                .chain(&r.finals)
                .map(|f| f.checksum)
                .collect::<Vec<_>>()
        };
        assert_eq!(
            sums(&a),
            sums(&b),
            "replays of one capture must render alike"
        );
    }
});
