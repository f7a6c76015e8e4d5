//! DP2 execution through the device with arbitrary setup, vertex data and
//! commands (layout: `common/dp2.rs`). Oracles:
//! * never panics (P1);
//! * the same input gives the same pixels, answers and state twice (no
//!   hidden state, no uninitialised reads; P8/P9);
//! * **prefix property** (P3/P4): when the call fails at `dwErrorOffset`,
//!   running only the commands before it on a fresh driver succeeds and
//!   leaves the same render-target bytes, the same bytes in every other
//!   surface (depth, textures, buffers) and the same `Driver::snapshot`;
//! * **bounded memory** (P6): the peak of live heap bytes of one run stays
//!   under the bytes of the surfaces it creates + `EXEC_HEAP_SLACK`
//!   (documented in `docs/limits.md`);
//! * **layered oracle** (P13, in `common/dp2.rs`, so `dp2_threads` checks it
//!   too): no input ends in a pipeline error, or in a submission refused for
//!   anything but a limit — the device validates all of it first.
#![no_main]
use libfuzzer_sys::fuzz_target;
use softhal_wire::names::codes;

#[path = "common/mod.rs"]
mod common;
#[path = "common/dp2.rs"]
mod dp2;

#[global_allocator]
static ALLOC: common::Counting = common::Counting;

/// Heap a DP2 run may use beyond its surfaces, command and vertex bytes
/// (state, decoded commands, the pipeline's scene): 64 MiB, the P6 bound.
const EXEC_HEAP_SLACK: usize = 64 << 20;

fuzz_target!(|data: &[u8]| {
    let Some(input) = dp2::Input::parse(data) else {
        return;
    };
    let a = dp2::run(&input, 1, true, dp2::Placement::Normal, None);
    // The second run is measured: the first one built any lazy statics.
    let (b, usage) = common::measure(|| dp2::run(&input, 1, true, dp2::Placement::Normal, None));
    let bound = input.surface_bytes() * 2 + input.vertices.len() + EXEC_HEAP_SLACK;
    common::note_peak("dp2_execute", usage.peak, bound);
    assert!(
        usage.peak <= bound,
        "peak heap {} > bound {bound}",
        usage.peak
    );
    // What is still live is exactly the outcome handed back.
    let kept = b.as_ref().map_or(0, dp2::Outcome::heap_bytes) as isize;
    assert!(
        usage.net <= kept,
        "a finished run left {} bytes allocated",
        usage.net - kept
    );
    assert_eq!(
        a, b,
        "the same input must give the same pixels, answers and state"
    );
    let Some(a) = a else { return };
    if a.ddrval != codes::D3D_OK && a.error_offset >= input.offset {
        let prefix = a.error_offset - input.offset;
        if prefix as usize <= input.commands.len() {
            let p = dp2::run(&input, 1, true, dp2::Placement::Normal, Some(prefix))
                .expect("the prefix run sets up as the full one did");
            if prefix > 0 {
                assert_eq!(
                    p.ddrval,
                    codes::D3D_OK,
                    "the valid prefix [0, {prefix}) must succeed"
                );
            }
            assert!(
                p.pixels == a.pixels,
                "prefix pixels differ (error at {})",
                a.error_offset
            );
            assert_eq!(
                p.digests, a.digests,
                "prefix surface bytes (depth, TEX0…, VB, IB) differ (error at {})",
                a.error_offset
            );
            if p.snapshot != a.snapshot {
                let (ps, fs) = (p.named_snapshot(), a.named_snapshot());
                let at = ps
                    .bytes()
                    .zip(fs.bytes())
                    .position(|(x, y)| x != y)
                    .unwrap_or(0);
                let show = |s: &str| {
                    s.get(at.saturating_sub(120)..(at + 120).min(s.len()))
                        .unwrap_or("")
                        .to_string()
                };
                panic!(
                    "prefix state differs (ddrval {:#x}, error at {}) at char {at}:\nprefix: …{}…\nfull:   …{}…",
                    a.ddrval, a.error_offset, show(&ps), show(&fs)
                );
            }
        }
    }
});
