//! Determinism across thread counts and SIMD (P8): the `dp2_execute`
//! layout (`common/dp2.rs`) rendered on 1 thread with SIMD, on 2 threads
//! with SIMD and on 1 thread without SIMD gives identical pixels, answers
//! and state.
#![no_main]
use libfuzzer_sys::fuzz_target;

#[path = "common/dp2.rs"]
mod dp2;

fuzz_target!(|data: &[u8]| {
    let Some(input) = dp2::Input::parse(data) else {
        return;
    };
    let one = dp2::run(&input, 1, true, None);
    let two = dp2::run(&input, 2, true, None);
    assert_eq!(one, two, "1 and 2 threads must agree");
    let scalar = dp2::run(&input, 1, false, None);
    assert_eq!(one, scalar, "SIMD and scalar must agree");
});
