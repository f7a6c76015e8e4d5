//! `SOFTHAL_LOG` (`softhal_capture::logging`): the filter lets through the
//! event of a refused DrawPrimitives2 command, with its opcode, offset and
//! reason, and nothing when it asks for less.

use softhal_capture::logging;
use softhal_device::{Driver, Format};
use std::sync::{Arc, Mutex};

/// A `MakeWriter` that keeps what the subscriber writes.
#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl std::io::Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl<'a> tracing_subscriber::fmt::MakeWriter<'a> for Captured {
    type Writer = Captured;
    fn make_writer(&'a self) -> Self::Writer {
        self.clone()
    }
}

/// A RENDERSTATE command (4-byte header + one 8-byte state: bytes 0..12),
/// then a D3DDP2OP_TRIANGLELIST (opcode 18) of 2 triangles from vertex 0
/// at byte 12 — 6 vertices, of which the call supplies 3: the device
/// refuses the list with D3DERR_COMMAND_UNPARSED at dwErrorOffset 12.
fn refused_call() {
    let mut cmd = vec![8u8, 0, 1, 0]; // D3DDP2OP_RENDERSTATE, 1 state
    cmd.extend_from_slice(&22u32.to_le_bytes()); // D3DRS_CULLMODE
    cmd.extend_from_slice(&1u32.to_le_bytes()); // D3DCULL_NONE
    cmd.extend_from_slice(&[18, 0, 2, 0]); // D3DDP2OP_TRIANGLELIST, 2 triangles
    cmd.extend_from_slice(&[0, 0]); // wVStart = 0
    let vertices = vec![0u8; 3 * 20]; // XYZRHW | DIFFUSE: 20 bytes each
    let mut d = Driver::new(1).unwrap();
    let rt = d.create_render_target(Format::X8R8G8B8, 4, 4).unwrap();
    let ctx = d.context_create(rt, None).unwrap();
    let f = d.run_commands(ctx, &cmd, 0x44, &vertices).unwrap_err();
    assert_eq!(f.offset, 12, "{f:?}");
}

fn log_of(filter: &str) -> String {
    let out = Captured::default();
    let s = logging::subscriber(filter, out.clone(), false).unwrap();
    tracing::subscriber::with_default(s, refused_call);
    let bytes = out.0.lock().unwrap().clone();
    String::from_utf8(bytes).unwrap()
}

#[test]
fn a_refused_command_is_logged_with_its_opcode_offset_and_code() {
    let log = log_of("softhal_device=warn");
    let lines: Vec<&str> = log
        .lines()
        .filter(|l| l.contains("DrawPrimitives2 refused"))
        .collect();
    assert_eq!(lines.len(), 1, "{log}");
    let line = lines[0];
    assert!(line.contains("WARN"), "{line}");
    assert!(line.contains("softhal_device"), "{line}");
    assert!(line.contains("error_offset=12"), "{line}");
    assert!(line.contains("opcode=\"D3DDP2OP_TRIANGLELIST\""), "{line}");
    assert!(line.contains("D3DERR_COMMAND_UNPARSED"), "{line}");
}

#[test]
fn a_filter_that_asks_for_less_logs_nothing() {
    assert_eq!(log_of("softhal_device=error"), "");
    assert_eq!(log_of("softhal_submit=debug"), "");
}

#[test]
fn a_filter_that_does_not_parse_is_an_error_naming_the_variable() {
    let e = logging::subscriber("softhal_device=loud", Captured::default(), false)
        .err()
        .unwrap();
    assert!(e.contains("SOFTHAL_LOG"), "{e}");
}
