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
//! * a loaded capture whose surfaces are small (`REPLAY_SURFACE_BUDGET`)
//!   and whose records are few (`REPLAY_MAX_RECORDS`) replays on a fresh
//!   driver without panicking, twice with the same frames (bounded time
//!   and size: larger captures are loaded and round-tripped only).
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

    if c.records.len() <= REPLAY_MAX_RECORDS && surface_bytes(&c) <= REPLAY_SURFACE_BUDGET {
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
