//! `pixel_history` on `testdata/captures/gouraud-strip.shcap.txt`: at
//! (20, 30) the near strip (z = 0.25) is drawn, then the far band
//! (z = 0.75, D3DCMP_LESS) is rejected by the depth test. Offsets counted
//! by hand from `d3dhal.h` sizes: VIEWPORTINFO 4 + 16, ZRANGE 4 + 8,
//! RENDERSTATE ×3 4 + 24, RENDERSTATE ×2 4 + 16, CLEAR 4 + 16 + one RECT 16
//! → the first TRIANGLESTRIP at 116, the second (4 + 2) at 122.

use softhal_capture::{pixel_history, text};
use std::path::Path;

fn capture() -> softhal_capture::Capture {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../testdata/captures/gouraud-strip.shcap.txt");
    text::from_text(&std::fs::read_to_string(&p).unwrap(), p.parent()).unwrap()
}

#[test]
fn a_drawn_pixel_then_a_depth_rejection() {
    let h = pixel_history(&capture(), (20, 30), None, 2).unwrap();
    assert_eq!(h.draws.len(), 2, "{h:#?}");
    let (near, far) = (&h.draws[0], &h.draws[1]);
    for (d, offset) in [(near, 116), (far, 122)] {
        assert_eq!((d.frame, d.call, d.command_offset), (1, 1, offset));
        assert_eq!(d.opcode, "D3DDP2OP_TRIANGLESTRIP");
        assert_eq!(d.format, "D3DFMT_X8R8G8B8");
        assert_eq!(d.render_target, 1);
        assert_eq!(d.events.len(), 1);
        assert!(d.matches_target);
    }
    assert_eq!(near.before_argb, Some(0xFF10_2030));
    let e = &near.events[0];
    assert_eq!(e.outcome, "written");
    assert_eq!(e.written, near.after);
    let z = e.depth.as_ref().unwrap();
    // 0.25 · 16777215 = 4194303.75 → 4194304 against the cleared 16777215.
    assert_eq!(
        (z.func, z.incoming, z.stored, z.passed),
        ("D3DCMP_LESS", 4_194_304, 16_777_215, true)
    );
    let e = &far.events[0];
    assert_eq!(e.outcome, "depth");
    assert_eq!(e.written, None);
    let z = e.depth.as_ref().unwrap();
    // 0.75 · 16777215 = 12582911.25 → 12582911, not < 4194304.
    assert_eq!(
        (z.func, z.incoming, z.stored, z.passed),
        ("D3DCMP_LESS", 12_582_911, 4_194_304, false)
    );
    assert_eq!(far.before, near.after);
    assert_eq!(far.after, near.after);
}

#[test]
fn a_pixel_no_draw_covers_and_a_frame_not_drawn() {
    let c = capture();
    assert!(pixel_history(&c, (2, 2), None, 1).unwrap().draws.is_empty());
    assert!(pixel_history(&c, (20, 30), Some(2..=2), 1)
        .unwrap()
        .draws
        .is_empty());
    assert_eq!(
        pixel_history(&c, (20, 30), Some(1..=1), 1)
            .unwrap()
            .draws
            .len(),
        2
    );
}
