//! `SOFTHAL_CAPTURE=path`: a host that embeds libsofthal records a capture
//! with no code change. This file holds one test, so that setting the
//! variable in this process touches no other test's drivers.

#![allow(unsafe_code)]

use softhal::*;
use softhal_wire::names::codes;
use std::path::{Path, PathBuf};
use std::ptr::null_mut;

mod common;
use common::*;

/// Draws one frame the way an emulator would: a render target, a
/// command buffer with a CLEAR, a context, DrawPrimitives2, a present.
fn draw_a_frame(d: *mut softhal_driver) -> Vec<u8> {
    let rt = surface(d, SOFTHAL_SURFACE_RENDERTARGET, 21, 4, 2);
    let cmds = softhal_wire::text::assemble(
        "CLEAR { dwFlags=D3DCLEAR_TARGET dwFillColor=0xff336699 dvFillDepth=1.0 }",
    )
    .unwrap();
    let cb = surface(d, SOFTHAL_SURFACE_COMMANDBUFFER, 0, 256, 1);
    write(cb, 0, &cmds);
    let ctx = context(d, rt);
    let mut dp2 = dp2_data(ctx, cb, cmds.len() as u32);
    // SAFETY: valid pointers to locals and live objects.
    unsafe {
        assert_eq!(D3dDrawPrimitives2(&mut dp2), codes::DDHAL_DRIVER_HANDLED);
        assert_eq!(dp2.dwVertexSize as HRESULT, OK);
        let mut px = vec![0u8; 4 * 2 * 4];
        assert_eq!(
            softhal_present(rt, px.as_mut_ptr().cast(), 16, px.len() as u32),
            OK
        );
        px
    }
}

fn last_error(d: *mut softhal_driver) -> String {
    let mut buf = vec![0u8; 1024];
    // SAFETY: `buf` has 1024 writable bytes.
    let r = unsafe { softhal_get_last_error(d, buf.as_mut_ptr().cast(), 1024, null_mut()) };
    assert_eq!(r, OK);
    let n = buf.iter().position(|b| *b == 0).unwrap();
    String::from_utf8_lossy(&buf[..n]).to_string()
}

fn destroy(d: *mut softhal_driver) {
    // SAFETY: a live driver.
    assert_eq!(unsafe { softhal_driver_destroy(d) }, OK);
}

#[test]
fn softhal_capture_records_every_driver_of_the_process() {
    let dir = std::env::temp_dir().join(format!("softhal-env-capture-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let listing = |dir: &Path| -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
            .collect();
        v.sort();
        v
    };

    // Unset (or empty): no capture, no file.
    std::env::remove_var(CAPTURE_ENV);
    let d = driver();
    draw_a_frame(d);
    assert_eq!(last_error(d), "");
    destroy(d);
    std::env::set_var(CAPTURE_ENV, "");
    destroy(driver());
    assert!(listing(&dir).is_empty());

    // Set: the first driver writes PATH, the second PATH with `.1`.
    let base: PathBuf = dir.join("trace.shcap");
    std::env::set_var(CAPTURE_ENV, &base);
    let (d1, d2) = (driver(), driver());
    let pixels = draw_a_frame(d1);
    draw_a_frame(d2);
    destroy(d1);
    destroy(d2);
    assert_eq!(listing(&dir), ["trace.1.shcap", "trace.shcap"]);
    // The capture replays to the pixels the host saw.
    for f in ["trace.shcap", "trace.1.shcap"] {
        let bytes = std::fs::read(dir.join(f)).unwrap();
        let c = softhal_capture::load(&bytes, None).unwrap();
        let r = softhal_capture::replay(&c, 0, |_, _| {}).unwrap();
        assert!(r.differences.is_empty(), "{f}: {:?}", r.differences);
        assert_eq!(r.frames.len(), 1, "{f}");
        assert_eq!(r.frames[0].rgba, pixels, "{f}");
    }

    // A path that cannot be written: the driver works, uncaptured, and
    // says why.
    let bad = dir.join("no-such-folder").join("x.shcap");
    std::env::set_var(CAPTURE_ENV, &bad);
    let d = driver();
    let why = last_error(d);
    assert!(
        why.starts_with("SOFTHAL_CAPTURE: no capture: cannot create "),
        "{why}"
    );
    assert!(why.contains("no-such-folder"), "{why}");
    draw_a_frame(d);
    destroy(d);
    std::env::remove_var(CAPTURE_ENV);
    assert!(!dir.join("no-such-folder").exists());
    std::fs::remove_dir_all(&dir).unwrap();

    // The names of later drivers.
    assert_eq!(
        capture_path(Path::new("/t/a.shcap"), 0),
        Path::new("/t/a.shcap")
    );
    assert_eq!(
        capture_path(Path::new("/t/a.shcap"), 12),
        Path::new("/t/a.12.shcap")
    );
    assert_eq!(capture_path(Path::new("trace"), 1), Path::new("trace.1"));
}
