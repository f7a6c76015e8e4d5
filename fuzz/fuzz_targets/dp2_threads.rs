//! Determinism across thread counts, SIMD and placement (P8, P2): the
//! `dp2_execute` layout (`common/dp2.rs`) rendered on 1 thread with SIMD,
//! on 2 threads with SIMD and with the commands placed after garbage in
//! their buffer (`Placement::Shifted`), and on 1 thread without SIMD gives
//! identical pixels, answers (error offsets relative to the commands) and
//! state.
#![no_main]
use libfuzzer_sys::fuzz_target;

#[path = "common/dp2.rs"]
mod dp2;

fuzz_target!(|data: &[u8]| {
    let Some(input) = dp2::Input::parse(data) else {
        return;
    };
    let one = dp2::run(&input, 1, true, dp2::Placement::Normal, None);
    let two = dp2::run(&input, 2, true, dp2::Placement::Shifted, None);
    assert_eq!(
        one, two,
        "1 thread and 2 threads with the commands shifted in their buffer must agree"
    );
    let scalar = dp2::run(&input, 1, false, dp2::Placement::Normal, None);
    assert_eq!(one, scalar, "SIMD and scalar must agree");
});
